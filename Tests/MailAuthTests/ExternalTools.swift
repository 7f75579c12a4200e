import Foundation

/// The repository's root (this file is Tests/MailAuthTests/ExternalTools.swift).
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Runs `executable` with `arguments` and `input` on standard input; its standard output, or an error with what it
/// printed when it exits non-zero.
private func run(_ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        let printed = String(decoding: errors, as: UTF8.self)
        throw ToolFailure(message: "\(arguments[0]) exited \(process.terminationStatus): " + printed)
    }
    return output
}

struct ToolFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The `openssl` command, for a key this package's `RSAPrivateKey` refuses (RFC 8463's 1024-bit example key).
enum OpenSSLCommand {
    /// RSASSA-PKCS1-v1_5 with SHA-256 of `message` by the private key `pem`.
    static func signSHA256(_ message: [UInt8], pem: String) throws -> [UInt8] {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("dkim-\(UUID().uuidString).pem")
        try Data(pem.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        return Array(try run(["openssl", "dgst", "-sha256", "-sign", keyFile.path], input: message))
    }
}

/// dkimpy (PyPI) with its Ed25519 extra (PyNaCl), installed into .build/client-sdks/dkimpy-ed25519 on first use, as the
/// client suites' `pip_target` does.
enum DKIMPy {
    static let version = "1.1.8"

    /// Whether each DKIM-Signature of `message`, top to bottom, verifies with dkimpy, its keys from `records`
    /// (TXT value by name).
    static func verify(_ message: [UInt8], records: [String: String]) throws -> [Bool] {
        let target = repository.appendingPathComponent(".build/client-sdks/dkimpy-ed25519").path
        if !FileManager.default.fileExists(atPath: target + "/nacl") {
            _ = try run([
                "python3", "-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check", "--target",
                target,
                "dkimpy[ed25519]==\(version)",
            ])
        }
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[1])
            import dkim
            records = json.loads(sys.argv[2])
            message = sys.stdin.buffer.read()
            def txt(name, timeout=5):
                value = records.get(name.decode().rstrip("."))
                return value.encode() if value else None
            def verified(index):
                try:
                    return bool(dkim.DKIM(message).verify(idx=index, dnsfunc=txt))
                except dkim.DKIMException:
                    return False
            count = sum(1 for line in message.split(b"\\r\\n\\r\\n")[0].split(b"\\r\\n")
                        if line.lower().startswith(b"dkim-signature:"))
            print(json.dumps([verified(i) for i in range(count)]))
            """
        let json = String(decoding: try JSONSerialization.data(withJSONObject: records), as: UTF8.self)
        let output = try run(["python3", "-c", script, target, json], input: message)
        return try JSONDecoder().decode([Bool].self, from: output)
    }
}
