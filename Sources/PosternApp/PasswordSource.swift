import Foundation

/// Where an operator command takes a password from: `--password` (seen by `ps` and kept in shell history),
/// `--password-stdin` or `--password-file`. Exactly one of the three.
public enum PasswordSource: Equatable, Sendable {
    /// The command line's `--password` value.
    case argument(String)
    /// Standard input, read to its end.
    case standardInput
    /// A file, read whole.
    case file(String)

    /// Why no password could be read; ``description`` is the operator's message.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// One line for the operator (never the password).
        public let description: String
    }

    /// The one source the flags name.
    /// - Throws: ``Failure`` when none or more than one is given.
    public static func choose(password: String?, standardInput: Bool, file: String?) throws -> PasswordSource {
        let named: [PasswordSource?] = [
            password.map(PasswordSource.argument), standardInput ? .standardInput : nil, file.map(PasswordSource.file),
        ]
        let given = named.compactMap { $0 }
        guard given.count == 1, let source = given.first else {
            throw Failure(
                description: given.isEmpty
                    ? "give the password with --password-stdin, --password-file FILE or --password"
                    : "give the password one way only: --password-stdin, --password-file or --password")
        }
        return source
    }

    /// The password: the argument as given; standard input's or the file's bytes as UTF-8 without one trailing
    /// newline (`\n` or `\r\n`), as `echo` and editors leave it.
    /// - Parameter readStandardInput: reads standard input to its end.
    /// - Throws: ``Failure`` when the file cannot be read or the bytes are not UTF-8.
    public func read(readStandardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) throws
        -> String
    {
        let data: Data
        switch self {
        case .argument(let password):
            return password
        case .standardInput:
            data = readStandardInput()
        case .file(let path):
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw Failure(description: "cannot read the password file \(path)")
            }
            data = contents
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw Failure(description: "the password is not UTF-8 text")
        }
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }  // "\r\n" is one Character
        return text
    }
}
