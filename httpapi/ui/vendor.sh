#!/usr/bin/env sh
# Re-fetches the browser libraries under vendor/ from the npm registry with
# `npm pack` (no node_modules, no install scripts), checks each tarball
# against the integrity pinned below, and copies only the files the pages
# load. Bump a version: change it and its integrity (`npm view PKG@VER
# dist.integrity`), run this script, commit vendor/ and check the e2e tests.
set -eu
cd "$(dirname "$0")"

SCALAR_VERSION=1.72.1
SCALAR_INTEGRITY=sha512-XpEJ0rfc/cXbCrR+iC4kK0o/WwX2dTtGQbT049OlPKAHD6IMIFdTeGz2r+M27P2EDWKyUITRm/NzlP8z2pw/Ow==
UPLOT_VERSION=1.6.32
UPLOT_INTEGRITY=sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fetch NAME VERSION INTEGRITY: npm pack NAME@VERSION into $tmp/NAME, verified.
fetch() {
  dir="$tmp/$(echo "$1" | tr '/@' '__')"
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "$1@$2" >/dev/null)
  tgz=$(ls "$dir"/*.tgz)
  got=$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  if [ "$got" != "$3" ]; then
    echo "vendor.sh: $1@$2: integrity $got, want $3" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$dir"
  pkg="$dir/package"
}

rm -rf vendor/scalar vendor/uplot vendor/swagger-ui
mkdir -p vendor/scalar vendor/uplot

fetch @scalar/api-reference "$SCALAR_VERSION" "$SCALAR_INTEGRITY"
# The standalone browser build: one script with its styles inside. Its
# source map is not shipped; drop the comment that points at it.
grep -v '^//# sourceMappingURL=' "$pkg/dist/browser/standalone.js" > vendor/scalar/standalone.js
# The package ships no license file; its package.json says MIT.
node -e 'const p=require(process.argv[1]);if(p.license!=="MIT"){console.error("vendor.sh: @scalar/api-reference is "+p.license+", not MIT");process.exit(1)}' "$pkg/package.json"
cat > vendor/scalar/LICENSE <<'MIT'
@scalar/api-reference is published on npm under the MIT license ("license": "MIT"
in its package.json); source: the scalar/scalar repository, packages/api-reference.

MIT License

Copyright (c) Scalar

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
the Software, and to permit persons to whom the Software is furnished to do so,
subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
MIT

fetch uplot "$UPLOT_VERSION" "$UPLOT_INTEGRITY"
cp "$pkg/dist/uPlot.iife.min.js" "$pkg/dist/uPlot.min.css" "$pkg/LICENSE" vendor/uplot/

cat > vendor/VERSION <<VERSIONS
@scalar/api-reference $SCALAR_VERSION $SCALAR_INTEGRITY
uplot $UPLOT_VERSION $UPLOT_INTEGRITY
VERSIONS
echo "vendor.sh: @scalar/api-reference@$SCALAR_VERSION and uplot@$UPLOT_VERSION in $(pwd)/vendor"
