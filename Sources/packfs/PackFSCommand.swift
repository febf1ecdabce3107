import ArgumentParser

@main
struct PackFSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packfs",
        abstract: "Offline map packs (MapLibre Native's offline database) as a filesystem.")
}
