# Every C++ file keeps the project's style (.clang-format, Debian's clang-format 14, installed by
# scripts/setup); the check itself must reject a file that breaks it.
source "$(dirname "$0")/common.bash"
repo=$(cd "$(dirname "$0")/../.." && pwd)
mapfile -t sources < <(cd "$repo" && find lib app tests python -name '*.cpp' -o -name '*.hpp' | sort)

check "there are sources to check" test "${#sources[@]}" -gt 100
check "every C++ file is clang-formatted" expect_exit 0 bash -c 'cd "$0" && clang-format --dry-run -Werror "$@"' \
  "$repo" "${sources[@]}"

cp "$repo/.clang-format" "$WORK/"
printf 'int  f( int x ){return x;}\n' >"$WORK/bad.cpp"
check "a misformatted file is caught" expect_exit 1 bash -c 'cd "$0" && clang-format --dry-run -Werror bad.cpp' "$WORK"

finish
