#!/usr/bin/env bash
# Refreshes the dashboard's vendored browser libraries from the npm registry at pinned versions.
#
# For each library: downloads the registry tarball named by `npm view NAME@VERSION dist.tarball`,
# checks it against the registry's sha512 integrity (`dist.integrity`), and copies only the built
# files the page loads plus the license into crates/gridprint-dashboard/assets/vendor/NAME/.
# VERSIONS below are the pins; change one, run this script, review the diff, commit.
# Needs: npm (for `npm view` only; no node_modules), curl, tar, sha512sum, base64.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/crates/gridprint-dashboard/assets/vendor"

# name version files-inside-package/ (space separated, relative to package/)
LIBS=(
  "maplibre-gl 6.17.0 dist/maplibre-gl.mjs dist/maplibre-gl-worker.mjs dist/maplibre-gl.css LICENSE.txt"
  "uplot 1.6.32 dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE"
)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for spec in "${LIBS[@]}"; do
  read -r name version files <<<"$spec"
  url="$(npm view "$name@$version" dist.tarball)"
  integrity="$(npm view "$name@$version" dist.integrity)"
  echo "$name@$version <- $url"
  curl -fsSL "$url" -o "$tmp/$name.tgz"
  want="${integrity#sha512-}"
  got="$(sha512sum "$tmp/$name.tgz" | cut -d' ' -f1 | xxd -r -p | base64 -w0)"
  if [ "$want" != "$got" ]; then
    echo "checksum mismatch for $name@$version: registry $want, downloaded $got" >&2
    exit 1
  fi
  rm -rf "$tmp/package" && tar -xzf "$tmp/$name.tgz" -C "$tmp"
  rm -rf "${dest:?}/$name" && mkdir -p "$dest/$name"
  for f in $files; do
    cp "$tmp/package/$f" "$dest/$name/$(basename "$f")"
  done
  printf '%s@%s\nsource: %s\nintegrity: %s\n' "$name" "$version" "$url" "$integrity" >"$dest/$name/VERSION"
done
echo "vendored into $dest"
