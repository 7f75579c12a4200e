import AuthCrypto
import Foundation
import Testing

/// Runs the `openssl` command line tool; returns stdout, or nil when it fails.
func runOpenSSL(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8]? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let inputPipe = Pipe()
    process.standardInput = inputPipe
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(Data(input)) }
    try inputPipe.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? [UInt8](data) : nil
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("postern-crypto-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("RSA keys and RS256")
struct RSATests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate()

    @Test("a generated key has 2048 bits, exponent 65537 and PKCS#8 PEM that loads back")
    func generateAndReload() throws {
        let key = Self.key
        #expect(key.publicKey.bits == 2048)
        #expect(key.publicKey.exponent == [0x01, 0x00, 0x01])
        #expect(key.publicKey.modulus.count == 256)
        #expect(key.publicKey.modulus.first! & 0x80 != 0)
        let pem = try key.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reloaded = try RSAPrivateKey(pem: pem)
        #expect(reloaded.publicKey.modulus == key.publicKey.modulus)
        #expect(key.publicKey.pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let publicKey = try RSAPublicKey(pem: key.publicKey.pem)
        #expect(publicKey.modulus == key.publicKey.modulus)
        #expect(publicKey.pem == key.publicKey.pem)
    }

    @Test("RS256 signatures equal `openssl dgst -sha256 -sign` and verify both ways")
    func matchesOpenSSL() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("key.pem").path
        try Self.key.pkcs8PEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let message = utf8("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0")
        let expected = try #require(try runOpenSSL(["dgst", "-sha256", "-sign", keyFile], input: message))
        let signature = try Self.key.signSHA256(message)
        #expect(signature.count == 256)
        #expect(signature == expected)
        #expect(Self.key.publicKey.verifySHA256(signature: expected, message: message))
        var tampered = signature
        tampered[10] ^= 1
        #expect(!Self.key.publicKey.verifySHA256(signature: tampered, message: message))
        #expect(!Self.key.publicKey.verifySHA256(signature: signature, message: message + [0]))
        #expect(!Self.key.publicKey.verifySHA256(signature: [], message: message))
        #expect(!Self.key.publicKey.verifySHA256(signature: Array(signature.dropLast()), message: message))
    }

    @Test("RS256 from 32 threads at once (contexts kept, reused and duplicated) equals the one-thread signature")
    func concurrentSignaturesAreTheSame() async throws {
        let key = try RSAPrivateKey.generate()
        let messages = (0..<8).map { utf8("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ\($0)In0") }
        let expected = try messages.map { try key.signSHA256($0) }
        let signatures = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for round in 0..<32 {
                group.addTask { (round % 8, try key.signSHA256(messages[round % 8])) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(signatures.count == 32)
        for (index, signature) in signatures {
            #expect(signature == expected[index])
            #expect(key.publicKey.verifySHA256(signature: signature, message: messages[index]))
        }
    }

    @Test("PKCS#1 private (BEGIN RSA PRIVATE KEY) and PKCS#1 public (BEGIN RSA PUBLIC KEY) PEMs load")
    func pkcs1() throws {
        let pkcs8 = try Self.key.pkcs8PEM
        let traditional = try #require(try runOpenSSL(["rsa", "-traditional"], input: utf8(pkcs8)))
        let traditionalText = String(decoding: traditional, as: UTF8.self)
        #expect(traditionalText.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        #expect(try RSAPrivateKey(pem: traditionalText).publicKey.modulus == Self.key.publicKey.modulus)

        let rsaPublic = try #require(try runOpenSSL(["rsa", "-RSAPublicKey_out"], input: utf8(pkcs8)))
        let rsaPublicText = String(decoding: rsaPublic, as: UTF8.self)
        #expect(rsaPublicText.hasPrefix("-----BEGIN RSA PUBLIC KEY-----"))
        let publicKey = try RSAPublicKey(pem: rsaPublicText)
        #expect(publicKey.modulus == Self.key.publicKey.modulus)
        #expect(publicKey.pem == Self.key.publicKey.pem)
    }

    @Test("garbage, encrypted, too small and non-RSA keys are refused")
    func refusals() throws {
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: "") }
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: Self.key.publicKey.pem) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(pem: "not a key") }
        #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: 1024) }

        let small = try #require(try runOpenSSL(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]))
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: String(decoding: small, as: UTF8.self)) }
        #expect(error?.code == .unsupportedKey)

        let ec = try #require(try runOpenSSL(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]))
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: String(decoding: ec, as: UTF8.self)) }

        let encrypted = try #require(
            try runOpenSSL(["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:secret"], input: utf8(try Self.key.pkcs8PEM)))
        let encryptedError = #expect(throws: CryptoError.self) {
            try RSAPrivateKey(pem: String(decoding: encrypted, as: UTF8.self))
        }
        #expect(encryptedError?.code == .invalidKey)
        #expect(encryptedError.map { !$0.description.contains("secret") } == true)
    }
}
