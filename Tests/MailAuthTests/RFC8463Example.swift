import Foundation

/// RFC 8463 Appendix A: the keys (A.1), their DNS records (A.2) and the message signed with both (A.3), lines joined
/// with CRLF.
enum RFC8463Example {
    /// A.1: the Ed25519 private key (the RFC 8032 section 7.1 test 1 seed), base64.
    static let ed25519Seed = Array(Data(base64Encoded: "nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A=")!)
    /// A.1: the 1024-bit RSA private key, PKCS#1 PEM.
    static let rsaPrivateKeyPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIICXQIBAAKBgQDkHlOQoBTzWRiGs5V6NpP3idY6Wk08a5qhdR6wy5bdOKb2jLQi
        Y/J16JYi0Qvx/byYzCNb3W91y3FutACDfzwQ/BC/e/8uBsCR+yz1Lxj+PL6lHvqM
        KrM3rG4hstT5QjvHO9PzoxZyVYLzBfO2EeC3Ip3G+2kryOTIKT+l/K4w3QIDAQAB
        AoGAH0cxOhFZDgzXWhDhnAJDw5s4roOXN4OhjiXa8W7Y3rhX3FJqmJSPuC8N9vQm
        6SVbaLAE4SG5mLMueHlh4KXffEpuLEiNp9Ss3O4YfLiQpbRqE7Tm5SxKjvvQoZZe
        zHorimOaChRL2it47iuWxzxSiRMv4c+j70GiWdxXnxe4UoECQQDzJB/0U58W7RZy
        6enGVj2kWF732CoWFZWzi1FicudrBFoy63QwcowpoCazKtvZGMNlPWnC7x/6o8Gc
        uSe0ga2xAkEA8C7PipPm1/1fTRQvj1o/dDmZp243044ZNyxjg+/OPN0oWCbXIGxy
        WvmZbXriOWoSALJTjExEgraHEgnXssuk7QJBALl5ICsYMu6hMxO73gnfNayNgPxd
        WFV6Z7ULnKyV7HSVYF0hgYOHjeYe9gaMtiJYoo0zGN+L3AAtNP9huqkWlzECQE1a
        licIeVlo1e+qJ6Mgqr0Q7Aa7falZ448ccbSFYEPD6oFxiOl9Y9se9iYHZKKfIcst
        o7DUw1/hz2Ck4N5JrgUCQQCyKveNvjzkkd8HjYs0SwM0fPjK16//5qDZ2UiDGnOe
        uEzxBDAr518Z8VFbR41in3W4Y3yCDgQlLlcETrS+zYcL
        -----END RSA PRIVATE KEY-----

        """
    /// A.2: `brisbane._domainkey.football.example.com`.
    static let ed25519Record = "v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
    /// A.2: `test._domainkey.football.example.com` (the record's strings joined).
    static let rsaPublicKey =
        "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDkHlOQoBTzWRiGs5V6NpP3idY6Wk08a5qhdR6wy5bdOKb2jLQiY/J16JYi0Qvx"
        + "/byYzCNb3W91y3FutACDfzwQ/BC/e/8uBsCR+yz1Lxj+PL6lHvqMKrM3rG4hstT5QjvHO9PzoxZyVYLzBfO2EeC3Ip3G+2kryOTIKT+l"
        + "/K4w3QIDAQAB"

    /// A.3: the two signature fields as printed, `b=` values cut off (what was signed).
    static let ed25519Unsigned = [
        "DKIM-Signature: v=1; a=ed25519-sha256; c=relaxed/relaxed;",
        " d=football.example.com; i=@football.example.com;",
        " q=dns/txt; s=brisbane; t=1528637909; h=from : to :",
        " subject : date : message-id : from : subject : date;",
        " bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=;",
        " b=",
    ].joined(separator: "\r\n")
    static let rsaUnsigned = [
        "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;",
        " d=football.example.com; i=@football.example.com;",
        " q=dns/txt; s=test; t=1528637909; h=from : to : subject :",
        " date : message-id : from : subject : date;",
        " bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=;",
        " b=",
    ].joined(separator: "\r\n")
    /// A.3: the signatures, folding removed.
    static let ed25519Signature =
        "/gCrinpcQOoIfuHNQIbq4pgh9kyIK3AQUdt9OdqQehSwhEIug4D11BusFa3bT3FY5OsU7ZbnKELq+eXdp1Q1Dw=="
    static let rsaSignature =
        "F45dVWDfMbQDGHJFlXUNB2HKfbCeLRyhDXgFpEL8GwpsRe0IeIixNTe3DhCVlUrSjV4BwcVcOF6+FF3Zo9Rpo1tFOeS9mPYQTnGdaSG"
        + "sgeefOsk2JzdA+L10TeYt9BgDfQNZtKdN1WO//KgIqXP7OdEFE4LjFYNcUxZQ4FADY+8="
    /// A.3's body hash.
    static let bodyHash = "2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8="
    /// The names of `h=`.
    static let signedNames = ["from", "to", "subject", "date", "message-id", "from", "subject", "date"]

    /// A.3's message without its signatures.
    static let message = Array(
        [
            "From: Joe SixPack <joe@football.example.com>",
            "To: Suzie Q <suzie@shopping.example.net>",
            "Subject: Is dinner ready?",
            "Date: Fri, 11 Jul 2003 21:00:37 -0700 (PDT)",
            "Message-ID: <20030712040037.46341.5F8J@football.example.com>",
            "",
            "Hi.",
            "",
            "We lost the game.  Are you hungry yet?",
            "",
            "Joe.",
            "",
        ].joined(separator: "\r\n").utf8)
}
