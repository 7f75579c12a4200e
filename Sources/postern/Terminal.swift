import Audit
import Foundation

/// The one way the command line writes to standard output (issue 66 item 3): every line of what a command prints,
/// stored text included (an email, a provider's `sub`, a subject), with its control characters escaped as `postern
/// audit` escapes them (``AuditText/escaped(_:)``: C0 with the line feed, DEL, C1, the line and paragraph separators,
/// the bidirectional controls, each as `\u{XX}`), so text someone else chose never drives the operator's terminal nor
/// forges a line. `scripts/check-imports` keeps every other `print` out of `Sources`.
enum Terminal {
    /// Writes `line` as one line, escaped.
    static func write(_ line: String) {
        print(AuditText.escaped(line))
    }

    /// Writes each of `lines` as ``write(_:)`` does.
    static func write(lines: [String]) {
        for line in lines { write(line) }
    }

    /// Writes one JSON text on a line, its control characters as JSON's `\uXXXX` escapes
    /// (``AuditText/terminalSafeJSON(_:)``): the same value for a parser, nothing raw for a terminal.
    static func writeJSON(_ json: [UInt8]) {
        print(String(decoding: AuditText.terminalSafeJSON(json), as: UTF8.self))
    }

    /// Writes `bytes` exactly when standard output is not a terminal (a file or a pipe: `mail show --raw > m.eml`);
    /// on a terminal, a line at a time (split at each line feed, a carriage return before it dropped), escaped.
    static func writeExact(_ bytes: [UInt8]) {
        guard isatty(STDOUT_FILENO) == 0 else {
            let text = String(decoding: bytes, as: UTF8.self)
            return write(
                lines: text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    String(line.hasSuffix("\r") ? line.dropLast() : line)
                })
        }
        FileHandle.standardOutput.write(Data(bytes))
    }
}
