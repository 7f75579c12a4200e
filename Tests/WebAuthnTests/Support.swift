import AuthCrypto
import WebAuthn

/// base64url (the vectors' encoding), trapping on a bad literal.
func b64(_ text: String) -> [UInt8] { Base64URL.decode(text)! }

/// The UTF-8 bytes of `text`.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }
