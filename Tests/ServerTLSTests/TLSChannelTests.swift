import PosternTestSupport
import ServerTLS
import Testing

/// ``TLSChannel`` over its memory BIOs against a TLS client over memory BIOs: the test moves every byte, so the
/// handshake, the plaintext each way, a forged record and the peer's close are seen with no socket.
@Suite("TLS channel over memory BIOs")
struct TLSChannelTests {
    /// One server session and one client, and the plaintext the session has read.
    final class Pair {
        let channel: TLSChannel
        let client = TLSTestClient()
        var plaintext: [UInt8] = []

        init() throws {
            channel = try TLSChannel(context: try TLSServerContextTests.context())
        }

        /// Hands the session what the client wrote and reads; returns whether the handshake is complete.
        @discardableResult
        func serverReads(_ bytes: [UInt8]? = nil) throws(TLSError) -> Bool {
            let bytes = bytes ?? client.takeOutput()
            bytes.withUnsafeBytes { channel.receive($0) }
            return try channel.readPlaintext(into: &plaintext)
        }

        /// Everything the session has for the socket.
        func ciphertext() -> [UInt8] {
            var all: [UInt8] = []
            var room = [UInt8](repeating: 0, count: 4096)
            while channel.pendingCiphertext > 0 {
                let count = room.withUnsafeMutableBufferPointer { channel.takeCiphertext($0) }
                all += room[..<count]
            }
            return all
        }

        /// Runs the handshake to its end (a few round trips), or fails the test.
        func handshake() throws {
            client.receive([])
            var rounds = 0
            while !(client.isEstablished && channel.isEstablished) {
                rounds += 1
                try #require(rounds <= 10, "the handshake did not finish in 10 round trips")
                try serverReads()
                client.receive(ciphertext())
            }
        }
    }

    @Test("the handshake completes against a self-signed pair, then plaintext crosses both ways")
    func handshakeAndPlaintext() throws {
        let pair = try Pair()
        #expect(!pair.channel.isEstablished)
        try pair.handshake()
        #expect(pair.channel.isEstablished && pair.client.isEstablished)

        pair.client.send("EHLO client.test\r\n")
        let ciphertext = pair.client.takeOutput()
        #expect(!ciphertext.isEmpty && ciphertext.firstRange(of: Array("EHLO".utf8)) == nil)
        #expect(try pair.serverReads(ciphertext))
        #expect(pair.plaintext == Array("EHLO client.test\r\n".utf8))

        try Array("250 ok\r\n".utf8).withUnsafeBytes { try pair.channel.writePlaintext($0) }
        #expect(pair.channel.pendingCiphertext > 0)
        #expect(pair.client.receive(pair.ciphertext()) == "250 ok\r\n")
        #expect(pair.channel.pendingCiphertext == 0 && !pair.channel.peerClosed)
    }

    @Test("a record changed in flight is refused: the read throws and nothing of it reaches the plaintext")
    func forgedRecordRefused() throws {
        let pair = try Pair()
        try pair.handshake()
        pair.client.send("MAIL FROM:<a@remote.test>\r\n")
        var forged = pair.client.takeOutput()
        try #require(forged.count > 5)
        forged[forged.count - 1] ^= 0x01  // the record's authentication tag
        #expect(throws: TLSError.self) { try pair.serverReads(forged) }
        #expect(pair.plaintext.isEmpty)
    }

    @Test("bytes that are not TLS fail the handshake")
    func notTLS() throws {
        let pair = try Pair()
        #expect(throws: TLSError.self) { try pair.serverReads(Array("EHLO client.test\r\n".utf8)) }
        #expect(!pair.channel.isEstablished && pair.plaintext.isEmpty)
    }

    @Test("the peer's close_notify ends the reading, with what came before it kept")
    func peerClose() throws {
        let pair = try Pair()
        try pair.handshake()
        pair.client.send("QUIT\r\n")
        pair.client.close()
        #expect(try pair.serverReads())
        #expect(pair.channel.peerClosed)
        #expect(pair.plaintext == Array("QUIT\r\n".utf8))
    }
}
