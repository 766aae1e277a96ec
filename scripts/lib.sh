# What the shell scripts share; test.sh and figures.sh source it from the workspace root.

# `cargo ARGS...` under loom, with the settings of scripts/loom.env (the grader reads the same
# file).
loom_cargo() {
  (
    while IFS='=' read -r key value; do
      [[ $key =~ ^[A-Z_]+$ ]] && export "$key=$value"
    done < scripts/loom.env
    exec cargo "$@"
  )
}

# The same settings as words for a figure's label, as a reader would type them:
# RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=3
loom_words() {
  sed -n 's/^\([A-Z_]*\)=\(.*\)$/\1=\2/p' scripts/loom.env |
    sed 's/^\([A-Z_]*\)=\(.* .*\)$/\1="\2"/' | paste -sd' '
}

# The chapter crates, in the book's order, from chapters/chapters.toml (the grader's table).
chapter_crates() {
  python3 -c 'import tomllib; print(*(c["name"] for c in tomllib.load(open("chapters/chapters.toml", "rb"))["chapter"]))'
}
