import SecondFactors
import SigningKeys

extension SecretSealing {
    /// TOTP secrets (owners', Pro users') sealed with the signing keys' sealer (AES-256-GCM under
    /// `POSTERN_KEY_SECRET`), each bound to its holder; `name` says whose in the sealer's errors.
    init(_ sealer: KeySealer, name: String) {
        self.init(
            seal: { secret, binding in try sealer.seal(secret, binding: binding, name: name) },
            open: { sealed, binding in try sealer.open(sealed, binding: binding, name: name) })
    }
}
