// Base64 and Base64URL moved to the pure target Base64Coding, the one codec of every target (issue 67 item 6); the
// targets that reached them through AuthCrypto still do.
@_exported import Base64Coding
