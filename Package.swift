// swift-tools-version:6.0
// PackFS: offline map packs (MapLibre Native's offline database) mounted as a filesystem.
// Layers depend one way (docs/internals.md, "The code's layout", lists each target and its arrows):
//   Basics <- SQLiteDB <- PackStore <- StyleModel <- Downloader <- PackLifecycle <- PackFSCommands
//                                      StyleModel <- PackFS <- FUSEBridge <- PackFSCommands
//                                      StyleModel <- Interchange <- PackFSCommands
//   Basics <- PMTilesFormat <- Downloader, Interchange
//   Basics <- HTTP <- Downloader, ObjectStorage, PackFSCommands
//   Basics, HTTP <- ObjectStorage <- PackFSCommands     (files to S3)
// Basics is the vocabulary every layer shares; every target depends on it.
// The executable `packfs` is the target PackFSCommands: a name that differs from the library
// PackFS by more than case, so that a case-insensitive file system holds both directories.
import PackageDescription

let package = Package(
    name: "PackFS",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "packfs", targets: ["PackFSCommands"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev", "liburing-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CGlibc"),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        // The vocabulary every layer shares: locks and threads, POSIX files, text helpers,
        // Position/Bounds/Geometry, JSONValue and its parser, MD5, the inflate family,
        // a row's stored data, the retry policy; no I/O beyond POSIX files.
        .target(name: "Basics", dependencies: ["CZlib", "CDeflate", "CGlibc", "CCrypto"]),

        // Connections, statements, rows and transactions over CSQLite: the subset of GRDB's API that
        // PackFS uses, under its names. GRDB imports Foundation, which links ICU into the binary.
        .target(name: "SQLiteDB", dependencies: ["Basics", "CSQLite"]),

        .target(name: "PackStore", dependencies: [
            "Basics", "CDeflate", "SQLiteDB",
            // SQLite's C API, for rows read in place (the census, the counted figures).
            "CSQLite",
        ]),
        // PMTiles v3's bytes: header, directories, tile ids; no I/O (files and HTTP ranges are the callers').
        .target(name: "PMTilesFormat", dependencies: ["Basics"]),
        // What a style means for a pack: one model for the downloader and the mount. It opens no
        // database: callers hand it the store's reads (PackDocuments, StoreSnapshot).
        .target(name: "StyleModel", dependencies: ["Basics", "PackStore"]),
        // The libcurl clients: downloads' (a multi loop, retries, body decoding, address checks) and
        // uploads' (SerialClient: one request at a time on one connection).
        .target(name: "HTTP", dependencies: ["Basics", "CCurl", "CZlib", "CDeflate"]),
        .target(name: "Downloader", dependencies: ["Basics", "PackStore", "StyleModel", "PMTilesFormat", "HTTP"]),
        .target(name: "PackFS", dependencies: ["Basics", "PackStore", "StyleModel"]),
        .target(name: "FUSEBridge", dependencies: ["Basics", "PackFS", "PackStore", "CFuse"]),
        // Packs over time: start, suspend, resume, redefine, refresh, remove; no FUSE.
        .target(name: "PackLifecycle", dependencies: ["Basics", "PackStore", "StyleModel", "Downloader"]),
        // Packs in and out: MBTiles, PMTiles, web directories, other offline databases; no FUSE.
        .target(name: "Interchange", dependencies: [
            "Basics",
            "PackStore", "StyleModel", "PMTilesFormat", "SQLiteDB",
        ]),
        // Files to S3 and S3-compatible stores: multipart upload signed by libcurl (through HTTP's
        // SerialClient); no database.
        .target(name: "ObjectStorage", dependencies: ["Basics", "HTTP", "CCrypto"]),
        .executableTarget(name: "PackFSCommands", dependencies: [
            "Basics", "HTTP",
            "PackStore", "StyleModel", "Downloader", "PackLifecycle", "PackFS", "FUSEBridge", "Interchange", "ObjectStorage",
            "CGlibc",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Writes batches until killed: the crash-safety test's subject.
        .executableTarget(name: "packfs-crashwriter", dependencies: ["Basics", "PackStore"], path: "Tests/CrashWriter"),
        // Helpers shared by the test targets: temp directories, test servers, the built executable.
        .target(name: "TestSupport", dependencies: ["Basics", "PackStore", "SQLiteDB"], path: "Tests/TestSupport"),
        // What each fuzz target does with one input; the unit tests replay findings through it.
        .target(
            name: "FuzzBodies", dependencies: ["Basics", "HTTP", "PackStore", "StyleModel", "Downloader", "PackFS", "Interchange"],
            path: "Tests/Fuzz/Bodies"),
        .testTarget(name: "SQLiteDBTests", dependencies: ["SQLiteDB", "CSQLite"]),
        .testTarget(
            name: "PackStoreTests",
            dependencies: ["Basics", "PackStore", "TestSupport", "SQLiteDB"],
            resources: [.copy("Reference")]),
        .testTarget(name: "StyleModelTests", dependencies: ["Basics", "StyleModel", "PackStore", "TestSupport"]),
        .testTarget(
            name: "DownloaderTests",
            dependencies: [
            "Basics", "HTTP",
                "Downloader", "StyleModel", "PackStore", "TestSupport", "SQLiteDB",
            ],
            exclude: ["Reference"]),
        .testTarget(
            name: "PackFSTests",
            dependencies: [
            "Basics",
                "PackFS", "PackStore", "StyleModel", "Downloader", "TestSupport", "FuzzBodies",
                "SQLiteDB",
            ]),
        .testTarget(
            name: "PackLifecycleTests",
            dependencies: [
            "Basics",
                "PackLifecycle", "PackStore", "Downloader", "TestSupport", "SQLiteDB",
            ]),
        .testTarget(
            name: "InterchangeTests",
            dependencies: ["Basics", "Interchange", "PackStore", "StyleModel", "PMTilesFormat", "TestSupport", "SQLiteDB"]),
        .testTarget(name: "ObjectStorageTests", dependencies: ["Basics", "ObjectStorage"]),
        .testTarget(
            name: "CLITests",
            dependencies: ["Basics", "PackStore", "StyleModel", "TestSupport", "SQLiteDB"]),
        .testTarget(
            name: "MountTests",
            dependencies: ["Basics", "PackStore", "TestSupport", "FUSEBridge", "PackFS", "SQLiteDB"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets, one executable per body (FuzzBodies.Target), only when scripts/fuzz.sh asks:
// each links libFuzzer's main, which no ordinary build has.
if Context.environment["PACKFS_FUZZ"] == "1" {
    package.targets.append(.systemLibrary(name: "CLibFuzzer", path: "Tests/Fuzz/CLibFuzzer"))
    package.targets.append(.target(
        name: "FuzzDriver", dependencies: ["FuzzBodies", "CLibFuzzer"], path: "Tests/Fuzz/Driver"))
    for target in ["region", "style", "tilejson", "geojson", "regiontext", "database", "pmtiles"] {
        package.targets.append(.executableTarget(
            name: "fuzz-\(target)", dependencies: ["FuzzDriver"], path: "Tests/Fuzz/Targets/\(target)"))
    }
}
