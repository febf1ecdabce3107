import Foundation
import PackStore
import TestSupport
import XCTest

/// The Debian package, built, checked, installed, used and removed. Its release build takes
/// minutes of every core, so CI leaves it out: `scripts/long-tests.sh` runs it, before a change
/// to the package, the binary's size or the mount scripts is resolved (docs/testing.md).
final class DebianPackageTests: MountpointTestCase {
    /// Debian's own checker accepts the package: no error, no warning (lintian prints one line
    /// per finding; its note about running as root goes to stderr). scripts/long-tests.sh installs lintian.
    private func assertLintianAccepts(_ deb: String) throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/lintian") else {
            if isCI { return XCTFail("lintian is needed to check the package (scripts/long-tests.sh installs it)") }
            return print("lintian is not installed: the package is not checked")
        }
        let checked = try Command.runApart("/usr/bin/lintian", ["--tag-display-limit", "0", deb])
        let findings = checked.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        XCTAssertEqual(findings, [], "lintian's errors and warnings on \(deb)")
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
    }

    /// `scripts/package.sh` builds the Debian package; installed with dpkg, its binary needs no
    /// Swift library, the web page is in /usr/share/packfs/web, `mount -t fuse.packfs` mounts
    /// through its helper (with `web_base=`, the page at the root), a tile reads, its
    /// `umount.packfs` unmounts, and `dpkg -r` takes every file away again. (It installs
    /// /sbin/mount.fuse.packfs, as MountScriptTests's helper test does: never run the two at once.)
    func testTheDebianPackageInstallsMountsReadsAndUnmounts() throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/dpkg"), getuid() == 0 else {
            if isCI { return XCTFail("dpkg and root are needed to install the package") }
            throw XCTSkip("dpkg and root are needed to install the package")
        }
        let built = try Command.runApart(ProjectPaths.root.path + "/scripts/package.sh", [], timeout: 1800)
        XCTAssertEqual(built.status, 0, built.stderr)
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb), built.stdout)
        // Honest metadata: no made-up homepage or address.
        let control = try Command.run("/usr/bin/dpkg-deb", ["-f", deb]).text
        XCTAssertFalse(control.contains("Homepage:"), control)
        XCTAssertFalse(control.contains("@localhost"), control)
        try assertLintianAccepts(deb)
        let installed = try Command.run("/usr/bin/dpkg", ["-i", deb])
        defer { _ = try? Command.run("/usr/bin/dpkg", ["-r", "packfs"]) }
        XCTAssertEqual(installed.status, 0, installed.text)
        XCTAssertEqual(try Command.run("/usr/bin/packfs", ["--version"]).text.trimmingCharacters(in: .whitespacesAndNewlines), "0.9.0")
        let libraries = try Command.run("/usr/bin/ldd", ["/usr/bin/packfs"]).text
        XCTAssertFalse(libraries.contains("libswift") || libraries.contains("Foundation"), libraries)
        // Small for a device: at most 25 MB stripped, a package of at most 10 MB, and no ICU
        // (full Foundation's locale data, whose name shows in the bytes of a stripped binary).
        let binary = try Data(contentsOf: URL(fileURLWithPath: "/usr/bin/packfs"))
        XCTAssertLessThanOrEqual(binary.count, 25_000_000, "the installed binary's size")
        XCTAssertNil(binary.firstRange(of: Data("icudt".utf8)), "the binary holds ICU's data")
        let package = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: deb)[.size] as? Int)
        XCTAssertLessThanOrEqual(package, 10_000_000, "the package's size")
        XCTAssertTrue(built.stderr.contains("MB stripped, package "), "package.sh prints both sizes: \(built.stderr)")
        for file in ["/sbin/mount.fuse.packfs", "/usr/sbin/umount.packfs", "/lib/systemd/system/packfs@.service",
                     "/usr/share/man/man1/packfs.1.gz", "/usr/share/man/man8/mount.fuse.packfs.8.gz",
                     "/usr/share/bash-completion/completions/packfs", "/usr/share/zsh/vendor-completions/_packfs"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), "the package installs \(file)")
        }
        let land = ProjectPaths.fixtures.appendingPathComponent("mbtiles/land.mbtiles").path
        let imported = try Command.run("/usr/bin/packfs", ["import", db, land, "--name", "land"])
        XCTAssertEqual(imported.status, 0, imported.text)
        // The web page and MapLibre GL JS with its licence, this checkout's, served from the package's
        // copy by a `--web-base` mount (web_base=, through the helper).
        let page = ["index.html", "packfs.js", "packfs.css", "maplibre-gl.js", "maplibre-gl.css", "maplibre-gl-LICENSE.txt"]
        for name in page {
            let installed = FileManager.default.contents(atPath: "/usr/share/packfs/web/" + name)
            XCTAssertFalse(installed?.isEmpty ?? true, "the package installs /usr/share/packfs/web/\(name)")
            if !name.hasPrefix("maplibre-gl.") {
                XCTAssertEqual(installed, FileManager.default.contents(atPath: ProjectPaths.root.path + "/web/" + name), name)
            }
        }
        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        let mounted = try Command.run("/bin/mount", ["-t", "fuse.packfs", db, mount.path, "-o", "web_base=http://127.0.0.1:1/packfs"],
                                      environment: environment)
        XCTAssertEqual(mounted.status, 0, mounted.text)
        let root = try FileManager.default.contentsOfDirectory(atPath: mount.path)
        XCTAssertEqual(Set(root), Set(["packs", "status.json", "packs.json"] + page), "the page at the root")
        XCTAssertEqual(FileManager.default.contents(atPath: mount.path + "/maplibre-gl.js"),
                       FileManager.default.contents(atPath: "/usr/share/packfs/web/maplibre-gl.js"))
        let tile = try XCTUnwrap(FileManager.default.subpaths(atPath: mount.path + "/packs/land")?.first { $0.hasSuffix(".pbf") })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: mount.path + "/packs/land/" + tile))
        let size = try FileManager.default.attributesOfItem(atPath: mount.path + "/packs/land/" + tile)[.size] as? Int
        XCTAssertFalse(bytes.isEmpty)
        XCTAssertEqual(bytes.count, size)
        let unmounted = try Command.run("/usr/sbin/umount.packfs", [mount.path], environment: environment)
        XCTAssertEqual(unmounted.status, 0, unmounted.text)
        XCTAssertFalse(mount.isMounted)
        XCTAssertEqual(try Command.run("/usr/bin/dpkg", ["-r", "packfs"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/usr/bin/packfs"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/sbin/mount.fuse.packfs"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/usr/share/packfs/web/index.html"))
    }
}
