#!/usr/bin/env bash
# Refreshes the vendored React: packs the pinned versions from the npm registry with npm
# (which checks each tarball against the registry's integrity hash), copies the UMD
# production builds and the license unmodified next to this script, and rewrites
# SHA256SUMS, which panel's TestVendorChecksums checks. React 19 ships no UMD builds, so
# the panel pins React 18.
#
#   bash panel/assets/vendor/refresh.sh            # the pinned version
#   REACT_VERSION=18.3.1 bash panel/assets/vendor/refresh.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${REACT_VERSION:-18.3.1}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "react@$version" "react-dom@$version" >/dev/null
mkdir react react-dom
tar -xzf "react-$version.tgz" -C react
tar -xzf "react-dom-$version.tgz" -C react-dom

cp react/package/umd/react.production.min.js "$here/react.production.min.js"
cp react-dom/package/umd/react-dom.production.min.js "$here/react-dom.production.min.js"
cp react/package/LICENSE "$here/LICENSE.react"
cp react-dom/package/LICENSE "$here/LICENSE.react-dom"
echo "$version" >"$here/VERSION"

cd "$here"
sha256sum LICENSE.react LICENSE.react-dom VERSION react.production.min.js react-dom.production.min.js >SHA256SUMS
echo "vendored React $version into $here"
