#!/bin/sh
# Writes an empty source file for every target Cargo.toml declares (the library,
# the binary and each [[bench]], [[test]] and [[example]]), so that the image
# build can compile the dependencies before it copies src/: that layer is then
# reused until the manifest, the lock file, build.rs or proto/ change.
#
# Run from the directory that holds Cargo.toml. POSIX sh and awk only, so that
# it runs in any builder image and under any builder (BuildKit, the classic
# Docker builder, podman, buildah).
set -eu

mkdir -p src
echo 'fn main() {}' > src/main.rs
: > src/lib.rs

for kind in bench test example; do
  case "$kind" in bench) dir=benches ;; *) dir="${kind}s" ;; esac
  awk -v kind="$kind" -v dir="$dir" '
    function flush() {
      if (sect && name != "") print (path != "" ? path : dir "/" name ".rs")
      name = ""; path = ""
    }
    /^[ \t]*\[/ { flush(); sect = ($0 ~ ("^[ \t]*\\[\\[" kind "\\]\\]")) }
    sect && /^[ \t]*name[ \t]*=/ { v = $0; sub(/^[^"]*"/, "", v); sub(/".*$/, "", v); name = v }
    sect && /^[ \t]*path[ \t]*=/ { v = $0; sub(/^[^"]*"/, "", v); sub(/".*$/, "", v); path = v }
    END { flush() }
  ' Cargo.toml | while read -r stub; do
    mkdir -p "$(dirname "$stub")"
    echo 'fn main() {}' > "$stub"
  done
done
