# What the shell scripts share; every script of scripts/ sources it from the workspace root.

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

# One field of every chapter, in the book's order, from chapters/chapters.toml (the grader's
# table), space-separated: `chapters_toml name` (the crates), `chapters_toml id` (ch01...).
# Read with sed, so that it works before python is installed.
chapters_toml() {
  sed -n "s/^$1 = \"\(.*\)\"\$/\1/p" chapters/chapters.toml | paste -sd' ' -
}

# A script's usage: the comment block under its first line, without the leading `# `.
usage_of() {
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p;}' "$1"
}

# Answers `-h`/`--help` with the usage (exit 0), and any argument the script does not take
# with its name and the usage on stderr (exit 2), before the script does anything:
# check_args SCRIPT "ALLOWED..." "$@" (ALLOWED: the words it takes, space-separated).
check_args() {
  local script=$1 allowed=" $2 " arg
  shift 2
  for arg in "$@"; do
    case $arg in
      -h | --help) usage_of "$script"; exit 0 ;;
    esac
    if [[ $allowed != *" $arg "* ]]; then
      { echo "$(basename "$script"): unknown argument '$arg'; it takes:"; usage_of "$script"; } >&2
      exit 2
    fi
  done
}
