import Foundation
import EmbeddedResources

/// Every configuration key as `config/postern.env` documents it (that file, built into the binary, is the one list):
/// its environment name, its default and the comment above it. `postern serve --help` prints them.
public struct ConfigurationKey: Sendable, Equatable {
    /// The environment name, e.g. `POSTERN_PORT`.
    public let name: String
    /// The default as the file writes it; nil for a key the file leaves unset (a commented `# KEY=` line).
    public let defaultValue: String?
    /// The comment lines above the key (shared by keys listed together), without their `#`.
    public let summary: String
    /// The `# --- Section ---` heading the key is under; empty before the first.
    public let section: String

    /// The keys of `file`, in its order.
    public static func parse(_ file: String) -> [ConfigurationKey] {
        var keys: [ConfigurationKey] = []
        var comment: [String] = []
        var section = ""
        var previousWasKey = false
        for rawLine in file.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                comment = []
                previousWasKey = false
                continue
            }
            var text = line
            let commented = line.hasPrefix("#")
            if commented { text = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces) }
            if commented, text.hasPrefix("---") {
                section = text.trimmingCharacters(in: CharacterSet(charactersIn: "- "))
                comment = []
                continue
            }
            // A commented key is a whole line `# KEY=value` with no space in it; a comment line that only starts
            // with a key's name (`# POSTERN_SMTP_PORT=0 does); ...`, a wrapped sentence) is prose.
            if let equals = text.firstIndex(of: "="), isKeyName(text[..<equals]),
                !commented || !text.contains(where: \.isWhitespace)
            {
                let value = String(text[text.index(after: equals)...])
                keys.append(
                    ConfigurationKey(
                        name: String(text[..<equals]), defaultValue: commented || value.isEmpty ? nil : value,
                        summary: comment.joined(separator: " "), section: section))
                previousWasKey = true
                continue
            }
            if previousWasKey { comment = [] }
            previousWasKey = false
            if commented { comment.append(text) }
        }
        return keys
    }

    /// The keys of the shipped `config/postern.env`.
    public static let all: [ConfigurationKey] = parse(EmbeddedResources.configurationFile.text)

    /// `serve --help`'s list: one key a line with its default, then the first sentence of its comment (once for keys
    /// that share one), under the file's section headings.
    public static func helpText() -> String {
        var lines = ["Settings (NAME=default; a flag overrides the environment, which overrides config/postern.env):"]
        var lastSection: String?
        var lastSummary: String?
        for key in all {
            if key.section != lastSection, !key.section.isEmpty {
                lines.append("")
                lines.append(key.section + ":")
                lastSection = key.section
            }
            var line = "  \(key.name)=\(key.defaultValue ?? "(unset)")"
            if key.summary != lastSummary, !key.summary.isEmpty { line += " - " + firstSentence(key.summary) }
            lastSummary = key.summary
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private static func isKeyName(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" } && text.first!.isLetter
    }

    private static func firstSentence(_ text: String) -> String {
        var start = text.startIndex
        while let end = text.range(of: ". ", range: start..<text.endIndex) {
            let before = text[..<end.lowerBound]
            // Not the end of a sentence: an abbreviation.
            if before.hasSuffix("e.g") || before.hasSuffix("i.e") || before.hasSuffix("etc") {
                start = end.upperBound
                continue
            }
            return String(before) + "."
        }
        return text
    }
}
