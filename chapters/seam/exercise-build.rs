// The build script of every chapter crate (each Cargo.toml says
// `build = "../seam/exercise-build.rs"`).
//
// It chooses the file compiled as `<chapter crate>::exercise` under the feature `exercise`:
// the reader's `src/exercise.rs`, or whatever GRADE_EXERCISE_FILE names, which is how the
// grader checks the reference solution and the mutants without touching the reader's file.
fn main() {
    println!("cargo:rerun-if-env-changed=GRADE_EXERCISE_FILE");
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let file =
        std::env::var("GRADE_EXERCISE_FILE").unwrap_or_else(|_| format!("{dir}/src/exercise.rs"));
    println!("cargo:rerun-if-changed={file}");
    println!("cargo:rustc-env=EXERCISE_FILE={file}");
}
