# Stand-ins for the package manager, so that scripts/setup can be tested without installing anything
# (sourced by tests/cli/setup.sh and tests/install/fresh_setup_test.sh).
#   make_setup_stubs DIR  writes dpkg-query, apt-get, npm and sudo into DIR; put DIR first on PATH.
# They follow these variables:
#   STUB_INSTALLED  a file listing the installed packages, one a line; any other package is missing.
#                   Unset: dpkg-query is the real one (only apt-get and sudo are stand-ins).
#   STUB_CALLS      every apt-get call is appended here, one a line (its arguments).
#   STUB_APT_FAIL   set: apt-get install prints progress, then an error, and exits 100.
# apt-get prints progress as dpkg does, on standard output, so a test can see where it ends up.
make_setup_stubs() {
  local dir=$1
  mkdir -p "$dir"
  if [ -n "${STUB_INSTALLED:-}" ]; then
    cat >"$dir/dpkg-query" <<'STUB'
#!/usr/bin/env bash
# dpkg-query -W -f=FORMAT PACKAGE: the real one prints the status, or exits 1 for an unknown package.
package=${!#}
if grep -qxF "$package" "$STUB_INSTALLED"; then printf 'install ok installed'; exit 0; fi
echo "dpkg-query: no packages found matching $package" >&2
exit 1
STUB
  fi
  cat >"$dir/apt-get" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"${STUB_CALLS:?}"
case "$1" in
  update) echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"; echo "Reading package lists..." ;;
  install)
    echo "Reading package lists..."
    echo "(Reading database ... 5%"
    echo "(Reading database ... 100%"
    for arg in "$@"; do
      case "$arg" in -*|install) ;; *) echo "Unpacking $arg (1.0-1) ..."; echo "Setting up $arg (1.0-1) ..." ;; esac
    done
    if [ -n "${STUB_APT_FAIL:-}" ]; then echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2; exit 100; fi ;;
esac
STUB
  # npm: scripts/setup --test runs `npm ci` in tests/browser when its packages are missing; logged, never run.
  cat >"$dir/npm" <<'STUB'
#!/usr/bin/env bash
echo "npm $*" >>"${STUB_CALLS:?}"
STUB
  cat >"$dir/sudo" <<'STUB'
#!/usr/bin/env bash
exec "$@"
STUB
  chmod +x "$dir"/*
}
