#!/usr/bin/env bash
# Builds the Debian package and prints its path: packfs_<version>_<arch>.deb in dist/.
#
# It holds a release binary linked with the Swift runtime statically (--static-swift-stdlib: the
# device needs no Swift), /sbin/mount.fuse.packfs (mount -t fuse.packfs, fstab), umount.packfs,
# the systemd unit packfs@.service, man pages packfs(1) (from the argument parser's help) and
# mount.fuse.packfs(8), bash and zsh completions (the argument parser's), and the web page a
# `--web-base` mount shows in /usr/share/packfs/web (web/ and MapLibre GL JS with its licence, from
# PyPI's maplibre: scripts/web-assets.sh). Depends: names the Debian packages of the libraries the
# binary links (its NEEDED entries, found with ldd and dpkg -S), and fuse3.
#
#   scripts/package.sh [--scratch-path DIR]    (default .build-package)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
scratch=.build-package
[ "${1:-}" = --scratch-path ] && scratch=$2
./scripts/setup.sh >&2
swift build -c release --product packfs --static-swift-stdlib --scratch-path "$scratch" >&2
binary="$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/packfs"
if ldd "$binary" | grep -q libswift; then echo "package.sh: $binary links a Swift library" >&2; exit 1; fi
version=$("$binary" --version)
arch=$(dpkg --print-architecture)
root=$(mktemp -d /tmp/packfs-package.XXXXXX)
trap 'rm -rf "$root"' EXIT
chmod 0755 "$root"  # the package's "/": mktemp's 0700 would be its mode

install -D -m 0755 "$binary" "$root/usr/bin/packfs"
strip --strip-unneeded "$root/usr/bin/packfs"
# Small enough for a device's flash: FoundationEssentials only, never ICU (full Foundation's
# locale data, 30 MB; its data's name, icudt, shows in the bytes even when stripped).
binary_limit=$((25 * 1000 * 1000)) package_limit=$((10 * 1000 * 1000))
binary_size=$(stat -c %s "$root/usr/bin/packfs")
if grep -q icudt "$root/usr/bin/packfs"; then echo "package.sh: $binary links ICU (full Foundation)" >&2; exit 1; fi
if [ "$binary_size" -gt "$binary_limit" ]; then
  echo "package.sh: the stripped binary is $binary_size bytes, over $binary_limit" >&2; exit 1
fi
install -D -m 0755 mount-scripts/mount.packfs "$root/sbin/mount.fuse.packfs"
install -D -m 0755 mount-scripts/umount.packfs "$root/usr/sbin/umount.packfs"
install -D -m 0644 mount-scripts/packfs@.service "$root/lib/systemd/system/packfs@.service"
mkdir -p "$root/usr/share/man/man1" "$root/usr/share/man/man8"
python3 scripts/package/manpage.py "$binary" "$version" | gzip -9n > "$root/usr/share/man/man1/packfs.1.gz"
gzip -9n < scripts/package/mount.fuse.packfs.8 > "$root/usr/share/man/man8/mount.fuse.packfs.8.gz"
ln -s mount.fuse.packfs.8.gz "$root/usr/share/man/man8/umount.packfs.8.gz"
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions"
# bash-completion sources the file: no hashbang (lintian's bash-completion-with-hashbang).
"$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/packfs"
"$binary" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_packfs"
./scripts/web-assets.sh "$root/usr/share/packfs/web"

# The Debian packages of the libraries the binary links itself (its NEEDED entries, where ldd
# finds them), and fuse3 for fusermount3.
needed=$(readelf -d "$binary" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
depends=$(for name in $needed; do
  library=$(ldd "$binary" | awk -v name="$name" '$1 == name { print $3 }')
  [ -n "$library" ] || continue
  dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
done | cut -d: -f1 | sort -u | tr '\n' ' ')
depends="fuse3, $(echo $depends | sed 's/ /, /g')"
# The maintainer the package names: PACKFS_MAINTAINER ("Name <address>"), else the git author
# configured where it is built, else none (dpkg-deb warns): never a made-up address. No Homepage:
# the project has none to name.
maintainer=${PACKFS_MAINTAINER:-}
if [ -z "$maintainer" ] && name=$(git config user.name 2>/dev/null) && email=$(git config user.email 2>/dev/null); then
  maintainer="$name <$email>"
fi
# What Debian's checker (lintian) asks of every package: a machine-readable copyright naming
# MapLibre GL JS's BSD-3 beside PackFS's own terms, and a changelog dated by the last commit.
install -D -m 0644 scripts/package/copyright "$root/usr/share/doc/packfs/copyright"
changed=$(date -R -u -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
printf 'packfs (%s) unstable; urgency=medium\n\n  * Built from PackFS %s.\n\n -- %s  %s\n' \
  "$version" "$version" "${maintainer:-PackFS}" "$changed" | gzip -9n > "$root/usr/share/doc/packfs/changelog.gz"
size=$(du -sk "$root" | cut -f1)
mkdir -p "$root/DEBIAN"
{
  echo "Package: packfs"
  echo "Version: $version"
  echo "Architecture: $arch"
  if [ -n "$maintainer" ]; then echo "Maintainer: $maintainer"; fi
  cat <<CONTROL
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: offline map packs as a filesystem
 PackFS mounts the SQLite offline database of MapLibre Native (and the Mapbox
 Maps SDK's legacy offline API) with FUSE: every pack is a directory of tiles,
 style.json, glyphs and sprites; writing a region file downloads a pack; rm
 removes it. With --web-base, the mount's root is a web page showing every pack
 live on a map (MapLibre GL JS, included).
CONTROL
} > "$root/DEBIAN/control"
mkdir -p dist
deb="dist/packfs_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >&2
package_size=$(stat -c %s "$deb")
echo "package.sh: binary $(awk -v b="$binary_size" 'BEGIN { printf "%.1f", b / 1e6 }') MB stripped," \
  "package $(awk -v b="$package_size" 'BEGIN { printf "%.1f", b / 1e6 }') MB" >&2
if [ "$package_size" -gt "$package_limit" ]; then
  echo "package.sh: $deb is $package_size bytes, over $package_limit" >&2; exit 1
fi
echo "$(pwd)/$deb"
