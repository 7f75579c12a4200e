import Foundation

// Writes a Swift source holding files as string literals; run by the EmbedResources build-tool plugin.
//
//     EmbedResourcesTool OUTPUT.swift --migrations FILE... --postgres-migrations FILE... --resources FILE...
//
// Migrations become `EmbeddedFiles.migrations` (SQLite's) and `EmbeddedFiles.postgresMigrations` (in the
// order given, by file name); each resource becomes
// a constant named after its file (`openapi.json` → `EmbeddedFiles.openapiJSON`). Every file must be
// UTF-8: a literal reproduces its bytes exactly, which `Array(text.utf8)` gives back.

/// Stops the build with a message naming the file at fault.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmbedResourcesTool: \(message)\n".utf8))
    exit(1)
}

/// A Swift string literal whose value is exactly `text`.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A Swift identifier from a file name: `openapi.json` → `openapiJSON`, `error-codes.txt` → `errorCodesTXT`.
func identifier(_ fileName: String) -> String {
    let words = fileName.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    guard let first = words.first else { fail("\(fileName): no letters or digits to name it by") }
    let stem = words.dropFirst().dropLast().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    let name = String(first) + stem + (words.count > 1 ? words.last!.uppercased() : "")
    return name.first!.isNumber ? "_" + name : name
}

/// `EmbeddedFile(name: "…", text: "…")` for the file at `path`.
func embedded(_ path: String) -> (name: String, source: String) {
    let name = URL(fileURLWithPath: path).lastPathComponent
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    guard let text = String(validating: [UInt8](data), as: UTF8.self) else { fail("\(path) is not UTF-8") }
    return (name, "EmbeddedFile(name: \(literal(name)), text: \(literal(text)))")
}

var arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.popFirst(), arguments.popFirst() == "--migrations",
    let postgresStart = arguments.firstIndex(of: "--postgres-migrations"),
    let split = arguments.firstIndex(of: "--resources"), postgresStart < split
else {
    fail("usage: EmbedResourcesTool OUTPUT.swift --migrations FILE... --postgres-migrations FILE... --resources FILE...")
}
let migrations = arguments[..<postgresStart].map(embedded)
let postgresMigrations = arguments[arguments.index(after: postgresStart)..<split].map(embedded)
let resources = arguments[arguments.index(after: split)...].map(embedded)

var source = """
    // Generated at build time by the EmbedResources plugin (Plugins/EmbedResources). Do not edit.

    enum EmbeddedFiles {
        /// `migrations/sqlite/*.sql` at the package root, by file name.
        static let migrations: [EmbeddedFile] = [

    """
for migration in migrations { source += "        \(migration.source),\n" }
source += "    ]\n\n    /// `migrations/postgres/*.sql` at the package root, by file name.\n"
source += "    static let postgresMigrations: [EmbeddedFile] = [\n"
for migration in postgresMigrations { source += "        \(migration.source),\n" }
source += "    ]\n"
for resource in resources {
    source += "\n    /// `\(resource.name)`.\n    static let \(identifier(resource.name)) = \(resource.source)\n"
}
source += "}\n"

do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("cannot write \(output): \(error)")
}
