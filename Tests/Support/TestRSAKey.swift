import AuthCrypto

/// The RSA-2048 key a test process's harnesses and fixtures sign RS256 with where which key it is is not the subject:
/// made once per process, as making one costs a quarter of a CPU-second on the test machine.
public enum TestRSAKey {
    public static let shared = try! RSAPrivateKey.generate(bits: 2048)
}
