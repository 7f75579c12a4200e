/// The one-time notice `/owner` shows after a passkey form redirected to it (``OwnerBrowser/flashCookie``): a fixed
/// text by its code, never anything typed.
enum OwnerPasskeyFlash: String {
    /// A passkey was registered.
    case added = "passkey.added"
    /// A passkey was renamed.
    case renamed = "passkey.renamed"
    /// A passkey was removed.
    case removed = "passkey.removed"
    /// A registration was refused (one message whatever failed).
    case refused = "passkey.refused"
    /// The name was empty, too long, or held control characters.
    case invalidName = "passkey.invalid_name"
    /// No such passkey of the owner's.
    case unknown = "passkey.unknown"
    /// The password was removed.
    case passwordRemoved = "password.removed"
    /// The password typed to confirm the removal was not the owner's.
    case wrongPassword = "password.wrong"
    /// The change would leave no way to sign in (no password and no usable passkey).
    case lastWay = "signin.last_way"

    /// What the page says.
    var words: String {
        switch self {
        case .added: "Passkey added: you can sign in with it now."
        case .renamed: "Passkey renamed."
        case .removed: "Passkey removed: it no longer signs you in."
        case .refused: OwnerService.passkeyRefused
        case .invalidName: "A passkey's name has 1 to 64 characters."
        case .unknown: "That passkey is not one of yours."
        case .passwordRemoved: "Password removed: you sign in with your passkeys."
        case .wrongPassword: "That is not your password: it was not removed."
        case .lastWay: "That would leave you no way to sign in: keep a password or a passkey that works."
        }
    }
}
