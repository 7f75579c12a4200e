import COpenSSLInit

/// How libcrypto was set up for this process.
public enum LibCrypto {
    /// Whether libcrypto was initialised before `main` without its exit-time cleanup (`COpenSSLInit`), so that
    /// a thread still hashing or signing while the process exits does not run into freed tables.
    public static var initializedWithoutExitCleanup: Bool { postern_openssl_initialized_without_atexit() == 1 }
}
