import Foundation
import PackagePlugin

/// Compiles the files a running Postern needs into the target it is applied to, so that the `postern`
/// binary runs from any directory with nothing beside it.
///
/// Embeds every `migrations/sqlite/*.sql` and `migrations/postgres/*.sql` at the package root (the
/// migrations stay the source of truth there), `config/postern.env`, and every file of the target's own directory that
/// is not Swift source or a link to the migrations (the OpenAPI document), through the `EmbedResourcesTool`
/// executable, into a generated `EmbeddedFiles.swift`.
///
/// SwiftPM runs a build-tool plugin when it plans a build, and it plans again only when Package.swift or
/// the files of a target directory change. The target therefore holds `migrations-sqlite` and
/// `migrations-postgres`, links to the package's two migration directories (excluded from its sources):
/// adding, removing or renaming a migration re-plans,
/// so a new migration is embedded by the next build without touching Package.swift; editing one reruns
/// the command, whose inputs are the files themselves.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let root = context.package.directoryURL.appending(path: "migrations")
        let sqlite = try files(in: root.appending(path: "sqlite")) { $0.pathExtension == "sql" }
        let postgres = try files(in: root.appending(path: "postgres")) { $0.pathExtension == "sql" }
        // The documented configuration file too: `postern serve --help` lists its keys from it.
        let configuration = context.package.directoryURL.appending(path: "config/postern.env")
        let resources = try files(in: target.directoryURL) { $0.pathExtension != "swift" } + [configuration]
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        var arguments: [String] = [output.path, "--migrations"]
        arguments += sqlite.map(\.path)
        arguments.append("--postgres-migrations")
        arguments += postgres.map(\.path)
        arguments.append("--resources")
        arguments += resources.map(\.path)
        return [
            .buildCommand(
                displayName: "Embedding \(sqlite.count) + \(postgres.count) migrations and \(resources.count) resources",
                executable: try context.tool(named: "EmbedResourcesTool").url,
                arguments: arguments,
                inputFiles: sqlite + postgres + resources,
                outputFiles: [output])
        ]
    }

    /// The regular files directly in `directory` that `include` accepts, sorted by name.
    private func files(in directory: URL, where include: (URL) -> Bool) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
        )
        .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true && include($0) }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
