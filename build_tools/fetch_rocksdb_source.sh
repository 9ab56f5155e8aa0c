#!/bin/sh
# Fetches RocksDB's source from Debian's source packages and prints the path
# of the unpacked tree (Debian's patches applied) as its last line.
#
#   build_tools/fetch_rocksdb_source.sh [VERSION|SUITE] [DEST]
#
#   VERSION  e.g. 7.8.3 or 7.8.3-2: that version, from this machine's release
#            (default: the installed librocksdb-dev's version)
#   SUITE    e.g. trixie: whatever version that Debian suite has
#   DEST     where to unpack (default: .); an existing tree there is reused
#
# It needs a deb-src entry for the suite. If there is none, it writes one to
# /etc/apt/sources.list.d/monkey-src-SUITE.sources, derived from this
# machine's own Debian entry (same URIs and keyring, Types: deb-src), and
# updates only that source. No host name is written here.
set -eu

die() {
  echo "fetch_rocksdb_source: $*" >&2
  exit 1
}

want=${1:-}
dest=${2:-.}
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"

case "$want" in
  "")
    version=$(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null) ||
      die "librocksdb-dev is not installed; give a version or a suite"
    suite=$codename
    ;;
  [0-9]*) version=$want; suite=$codename ;;
  *) version=""; suite=$want ;;
esac

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "needs root or sudo to configure apt"
  sudo=sudo
fi
command -v dpkg-source >/dev/null ||
  die "dpkg-source is missing: apt-get install dpkg-dev"

# All apt source entries, one per line: types|uris|suites|components|signed-by
# (deb822 .sources files and one-line .list files).
apt_entries() {
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'function flush() {
           if (types != "") print types "|" uris "|" suites "|" comps "|" key
           types = uris = suites = comps = key = ""; enabled = 1
         }
         BEGIN { enabled = 1 }
         /^[ \t]*#/ { next }
         /^[ \t]*$/ { flush(); next }
         { field = tolower($1); sub(/:$/, "", field); $1 = ""; sub(/^ +/, "") }
         field == "types" { types = $0 }
         field == "uris" { uris = $0 }
         field == "suites" { suites = $0 }
         field == "components" { comps = $0 }
         field == "signed-by" { key = $0 }
         field == "enabled" && tolower($0) == "no" { types = "disabled" }
         END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '/^[ \t]*(deb|deb-src)[ \t]/ {
           type = $1; key = ""; i = 2
           if ($2 ~ /^\[/) {
             for (; i <= NF; i++) {
               if ($i ~ /^\[?signed-by=/) {
                 key = $i; sub(/^\[?signed-by=/, "", key); sub(/\]$/, "", key)
               }
               if ($i ~ /\]$/) { i++; break }
             }
           }
           uri = $i; suite = $(i + 1); comps = ""
           for (j = i + 2; j <= NF; j++) comps = comps " " $j
           print type "|" uri "|" suite "|" comps "|" key
         }' "$f"
  done
}

# Entries of type $1 for suite $2 with component main.
entries_for() {
  apt_entries | awk -F'|' -v type="$1" -v suite="$2" '
    { n = split($1, t, " "); ok = 0
      for (i = 1; i <= n; i++) if (t[i] == type) ok = 1
      n = split($3, s, " "); hit = 0
      for (i = 1; i <= n; i++) if (s[i] == suite) hit = 1
      if (ok && hit && (" " $4 " ") ~ / main /) print }'
}

if [ -z "$(entries_for deb-src "$suite")" ]; then
  base=$(entries_for deb "$codename" | head -n 1)
  [ -n "$base" ] ||
    die "no Debian apt entry for '$codename' (main) to derive a deb-src from"
  uris=$(echo "$base" | cut -d'|' -f2)
  key=$(echo "$base" | cut -d'|' -f5)
  list=/etc/apt/sources.list.d/monkey-src-$suite.sources
  echo "fetch_rocksdb_source: adding deb-src for $suite to $list" >&2
  {
    echo "Types: deb-src"
    echo "URIs: $uris"
    echo "Suites: $suite"
    echo "Components: main"
    [ -z "$key" ] || echo "Signed-By: $key"
  } | $sudo tee "$list" >/dev/null
  # Update only the new source, and keep every other list as it is.
  $sudo apt-get update -qq -o Dir::Etc::sourcelist="$list" \
    -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 ||
    die "apt-get update of $list failed"
fi

# The exact source version: in the suite's index, or installed.
if [ -z "$version" ]; then
  version=$(apt-get source --print-uris -qq "rocksdb/$suite" 2>/dev/null |
    sed -n "s/.*rocksdb_\([^ ']*\)\.dsc.*/\1/p" | head -n 1)
  [ -n "$version" ] || die "no rocksdb source for suite '$suite' in apt"
fi
case "$version" in
  *-*) ;;
  *)
    # An upstream version: take the newest Debian revision apt knows.
    full=$(apt-cache showsrc rocksdb 2>/dev/null |
      awk -v v="$version" '$1 == "Version:" && index($2, v "-") == 1 {
        print $2 }' | sort -V | tail -n 1)
    [ -n "$full" ] || die "no rocksdb $version source in apt; give a suite"
    version=$full
    ;;
esac
upstream=${version%%-*}
# Debian packages may carry an epoch ("1:7.8.3-2"); the tree never does.
upstream=${upstream#*:}

# Some mirrors serve a source package's upstream tarball but not its .dsc or
# Debian part (trixie's rocksdb 9.10.0 here). Then unpack the tarball that
# apt fetched, checked against the SHA256 of the suite's signed index, and say
# that Debian's patches are missing.
unpack_upstream_tarball() {
  # (apt lists only files not yet in the current directory)
  line=$(cd / && apt-get source --print-uris -qq "rocksdb=$version" |
    awk '$2 ~ /\.orig\.tar\./ { print $2, $4 }')
  orig=${line% *} sum=${line#*SHA256:}
  [ -n "$line" ] && [ -f "$dest/$orig" ] || return 1
  [ "$(sha256sum "$dest/$orig" | cut -d' ' -f1)" = "$sum" ] ||
    die "$dest/$orig does not match the SHA256 in apt's index"
  echo "fetch_rocksdb_source: warning: no .dsc for rocksdb $version here;" \
    "unpacking the checked upstream tarball $orig without Debian's patches" >&2
  mkdir -p "$tree"
  tar -xf "$dest/$orig" -C "$tree" --strip-components=1
}

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
tree=$dest/rocksdb-$upstream
if [ ! -f "$tree/include/rocksdb/version.h" ]; then
  echo "fetch_rocksdb_source: apt-get source rocksdb=$version into $dest" >&2
  (cd "$dest" && apt-get source -qq "rocksdb=$version" >&2) ||
    unpack_upstream_tarball ||
    die "apt-get source rocksdb=$version failed"
  [ -f "$tree/include/rocksdb/version.h" ] ||
    die "apt-get source did not unpack $tree"
fi
echo "$tree"
