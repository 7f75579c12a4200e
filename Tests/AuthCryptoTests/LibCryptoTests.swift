import Testing

@testable import AuthCrypto

@Suite("libcrypto process setup")
struct LibCryptoTests {
    @Test("libcrypto is initialised before main without its atexit cleanup")
    func noExitCleanup() {
        #expect(LibCrypto.initializedWithoutExitCleanup)
    }
}
