#!/bin/sh
# Gets RocksDB's source from Debian's source packages and unpacks it (with
# Debian's patches, as Debian builds it) into a fresh directory.
#
# Usage: tools/fetch_rocksdb_source.sh VERSION|SUITE DEST
#   VERSION  7.8.3 (Debian 12, bookworm) or 9.10.0 (Debian 13, trixie)
#   SUITE    any Debian suite with a rocksdb source package
#   DEST     directory to create (replaced if it exists)
# Environment:
#   ROCKSDB_SOURCE_CACHE=dir  where downloaded packages are kept
#                             (default: build-fork/sources in the repo)
#
# The apt source entry comes from the machine's own: the Debian entry for
# its release (same URIs and keyring) gives a `Types: deb-src` entry for the
# wanted suite in /etc/apt/sources.list.d/monkey-src-SUITE.sources. No host
# name is written here. Needs root or sudo the first time, for apt-get update.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
me=fetch_rocksdb_source
die() {
  printf '%s: %s\n' "$me" "$*" >&2
  exit 1
}
[ $# -eq 2 ] || die "usage: $0 VERSION|SUITE DEST"
want=$1 dest=$2
case $want in
  7.8.3) suite=bookworm ;;
  9.10.0) suite=trixie ;;
  [0-9]*) die "no known Debian suite has RocksDB $want (7.8.3: bookworm, 9.10.0: trixie)" ;;
  *) suite=$want want="" ;;
esac
cache=${ROCKSDB_SOURCE_CACHE:-$repo/build-fork/sources}/$suite
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# The machine's Debian entry for its own release, in deb822 form: URIs and
# Signed-By of the first `Types: deb` stanza whose Suites has the codename.
derive_entry() {
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v codename="$codename" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " codename " ") &&
            uris != "" && !done) {
          print uris "\t" signed; done = 1
        }
        types = suites = uris = signed = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
      /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
      /^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
      /^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); signed = $0 }
      END { flush() }' "$f"
  done | head -n 1 | grep . && return
  # One-line format: "deb [signed-by=...] URI codename main ...".
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk -v codename="$codename" '
      $1 == "deb" {
        signed = ""; i = 2
        if ($2 ~ /^\[/) {
          for (; i <= NF; i++) {
            if ($i ~ /signed-by=/) { signed = $i; sub(/.*signed-by=/, "", signed); sub(/\]$/, "", signed) }
            if ($i ~ /\]$/) { i++; break }
          }
        }
        if ($(i + 1) == codename) { print $i "\t" signed; exit }
      }' | grep . ||
    die "no Debian apt entry for '$codename' to derive a deb-src entry from"
}

list=/etc/apt/sources.list.d/monkey-src-$suite.sources
if ! apt-get source --print-uris "rocksdb/$suite" >/dev/null 2>&1; then
  if [ ! -f "$list" ]; then
    entry=$(derive_entry)
    uris=$(printf '%s' "$entry" | cut -f1)
    signed=$(printf '%s' "$entry" | cut -f2)
    printf '%s: adding deb-src for %s (%s) in %s\n' "$me" "$suite" "$uris" "$list" >&2
    {
      echo "Types: deb-src"
      echo "URIs: $uris"
      echo "Suites: $suite"
      echo "Components: main"
      [ -z "$signed" ] || echo "Signed-By: $signed"
    } | $sudo tee "$list" >/dev/null
  fi
  $sudo apt-get update -qq || die "apt-get update failed (see above)"
fi

# Download what is missing (apt checks each file against the suite's signed
# Sources index), then unpack: the .dsc with Debian's patches when there is
# one, else the hash-checked upstream tarball alone (some mirrors lack the
# Debian parts; this says so).
mkdir -p "$cache"
uris=$(apt-get source --print-uris -qq "rocksdb/$suite") ||
  die "apt-get source --print-uris rocksdb/$suite failed"
verified() { # FILE: present in the cache with the index's SHA256
  sum=$(printf '%s\n' "$uris" | awk -v f="$1" '$2 == f { sub(/^SHA256:/, "", $4); print $4 }')
  [ -n "$sum" ] && [ -f "$cache/$1" ] &&
    [ "$(sha256sum "$cache/$1" | cut -d' ' -f1)" = "$sum" ]
}
dsc=$(printf '%s\n' "$uris" | awk '$2 ~ /\.dsc$/ { print $2 }')
orig=$(printf '%s\n' "$uris" | awk '$2 ~ /\.orig\.tar\./ { print $2 }')
if ! { [ -n "$dsc" ] && verified "$dsc"; } && ! { [ -n "$orig" ] && verified "$orig"; }; then
  (cd "$cache" && apt-get source --download-only -qq "rocksdb/$suite") ||
    printf '%s: warning: some of rocksdb/%s could not be downloaded\n' "$me" "$suite" >&2
fi
rm -rf "$dest"
if [ -n "$dsc" ] && verified "$dsc"; then
  # dpkg-source checks the other files against the .dsc's checksums.
  out=$(dpkg-source -x "$cache/$dsc" "$dest" 2>&1) ||
    die "could not unpack $cache/$dsc into $dest: $out"
elif [ -n "$orig" ] && verified "$orig"; then
  printf '%s: warning: %s unavailable; using the upstream tarball %s (SHA256 checked) without Debian patches\n' \
    "$me" "${dsc:-the .dsc}" "$orig" >&2
  mkdir -p "$dest"
  tar -xf "$cache/$orig" -C "$dest" --strip-components=1 ||
    die "could not unpack $cache/$orig into $dest"
else
  die "rocksdb/$suite: neither the .dsc nor the upstream tarball could be downloaded and checked"
fi
got=$(awk '/define ROCKSDB_MAJOR/{a=$3} /define ROCKSDB_MINOR/{b=$3}
           /define ROCKSDB_PATCH/{c=$3} END{print a "." b "." c}' \
  "$dest/include/rocksdb/version.h")
[ -z "$want" ] || [ "$got" = "$want" ] ||
  die "$suite's rocksdb source is $got, not $want"
echo "$dest"
