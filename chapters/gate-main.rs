// The end of every chapter's `benches/gate.rs`, included there with `include!`: it times the
// chapter's `workload::<Reference>` and `workload::<Exercise>` alternately, twice each, in one
// criterion group `gate`. The grader keeps the faster run of each side: whichever goes first
// on a busy machine otherwise pays for the warm-up of both.
//
// The including file defines `fn workload<X>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str)`
// and brings `Reference` and `Exercise` into scope.

fn gate(c: &mut criterion::Criterion) {
    let mut g = c.benchmark_group("gate");
    for round in 1..=2 {
        workload::<Reference>(&mut g, &format!("reference-{round}"));
        workload::<Exercise>(&mut g, &format!("exercise-{round}"));
    }
    g.finish();
}

criterion::criterion_group!(benches, gate);
criterion::criterion_main!(benches);
