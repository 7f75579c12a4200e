import AuthCrypto

/// Bytes from hex written with optional spaces, for readable vectors.
func bytes(_ hex: String) -> [UInt8] {
    guard let decoded = Hex.decode(hex.filter { !$0.isWhitespace }) else {
        preconditionFailure("bad hex in test vector")
    }
    return decoded
}

/// The UTF-8 bytes of `text`.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }
