/// Whose second factors a ``SecondFactorStore`` keeps: a family's two tables (the TOTP secret with its last accepted
/// step, and the recovery codes' digests), the column naming the holder, and the words that bind a sealed secret to
/// its holder. The only place the tables' names are written; the store's SQL names them through this.
public struct SecondFactorTables: Sendable, Equatable {
    /// The table of TOTP secrets: one row per holder (`secret`, `created_at`, `confirmed_at`, `last_step`).
    let totp: String
    /// The table of recovery codes: (`holder`, `digest`, `created_at`, `used_at`).
    let recoveryCodes: String
    /// The column of both tables that names the holder.
    let holder: String
    /// What a sealed secret is bound to, before the holder's id (a secret moved to another holder does not open).
    let binding: String

    /// Owners (migration 0074): `owner_totp`, `owner_recovery_codes`, by `owner_id`.
    public static let owners = SecondFactorTables(
        totp: "owner_totp", recoveryCodes: "owner_recovery_codes", holder: "owner_id", binding: "postern owner totp")

    /// Mail.td's Pro users (migration 0081): `pro_user_totp`, `pro_user_recovery_codes`, by `pro_user_id`.
    public static let proUsers = SecondFactorTables(
        totp: "pro_user_totp", recoveryCodes: "pro_user_recovery_codes", holder: "pro_user_id",
        binding: "postern pro user totp")
}
