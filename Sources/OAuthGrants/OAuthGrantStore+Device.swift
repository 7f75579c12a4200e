import Directory
import Foundation
import Storage

/// The device authorization grant of migration 0071 (`oauth_device_codes`, RFC 8628): a client starts one, the owner
/// answers it on `/owner/device` by its user code, the device polls for it by its device code. Each change reads the
/// row, asks ``OAuthDeviceCodeState`` what it does, and writes the new state only if the row's `version` is still the
/// one read (on SQLite writes are serialised anyway; on PostgreSQL two instances racing find that one lost). The
/// owner's approval writes an `oauth_grants` row in the same transaction, so revocation, introspection and the owner's
/// connected apps know the grant as any other; the device's redemption writes its tokens as a code's does.
extension OAuthGrantStore {
    /// A device authorization just started: what the client is answered.
    public struct DeviceStart: Sendable, Equatable {
        /// The device code the client polls with (the table holds its digest).
        public let deviceCode: String
        /// The user code in normal form (``OAuthUserCode``).
        public let userCode: String
        /// Unix seconds.
        public let expiresAt: Int64
    }

    /// A pending device authorization as the verification page shows it.
    public struct DeviceRequest: Sendable, Equatable {
        /// The user code, normal form.
        public let userCode: String
        /// The client that asked.
        public let clientID: String
        /// The permissions it asked for.
        public let permissions: MailPermissions
        /// The resource it asked for, as written.
        public let resource: String
        /// Unix seconds.
        public let expiresAt: Int64
    }

    /// What the token endpoint answers a device code's poll.
    public enum DevicePoll: Sendable, Equatable {
        /// No such device code, or another client's: `invalid_grant`.
        case unknown
        /// Not (or no longer) redeemable, or not yet: the error the state machine names.
        case refused(OAuthDeviceCodeState.Poll)
        /// The owner approved `grant`: mint its tokens and ``redeemDevice(_:grant:issue:now:)``.
        case approved(OAuthGrant)
    }

    /// Starts a device authorization for `clientID`: a new device code and a user code no other row holds.
    /// - Throws: storage errors; ``DeviceStoreError/userCodesExhausted`` when eight drawn codes were all taken.
    public func startDevice(
        clientID: String, permissions: MailPermissions, resource: String, now: Int64, lifetime: Int64, interval: Int64
    ) async throws -> DeviceStart {
        let deviceCode = OAuthDigest.newToken()
        for _ in 0..<8 {
            let userCode = OAuthUserCode.random()
            let inserted = try await database.write { connection in
                try connection.run(
                    """
                    INSERT INTO oauth_device_codes (device_digest, user_code, client_id, scope, resource, created_at,
                        expires_at, poll_interval)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_code) DO NOTHING
                    """,
                    [
                        .blob(OAuthDigest.of(deviceCode)), .text(userCode), .text(clientID), .text(permissions.scope),
                        .text(resource), .integer(now), .integer(now + lifetime), .integer(interval),
                    ])
            }
            if inserted == 1 {
                return DeviceStart(deviceCode: deviceCode, userCode: userCode, expiresAt: now + lifetime)
            }
        }
        throw DeviceStoreError.userCodesExhausted
    }

    /// The device authorization of `userCode` (normal form) while the owner may answer it.
    public func deviceRequest(userCode: String, now: Int64) async throws -> DeviceRequest? {
        try await database.read { connection in
            guard let row = try Self.deviceRow("d.user_code", .text(userCode), connection),
                row.state.answerable(now: now)
            else { return nil }
            return row.request
        }
    }

    /// The owner `ownerID` approves the device authorization of `userCode`: a grant as ``approve(ownerID:clientID:
    /// agentID:boundAccountID:permissions:resource:redirectURI:codeChallenge:now:codeLifetime:grantLifetime:)``
    /// makes, without a code; the client is marked used. Nil when the code is no longer answerable (expired,
    /// answered, or answered meanwhile by another request).
    public func approveDevice(
        userCode: String, ownerID: String, agentID: String?, boundAccountID: String?, permissions: MailPermissions,
        now: Int64, grantLifetime: Int64
    ) async throws -> OAuthGrant? {
        do {
            return try await database.write { connection in
                try connection.transaction { () throws -> OAuthGrant? in
                    guard let row = try Self.deviceRow("d.user_code", .text(userCode), connection) else { return nil }
                    let grant = OAuthGrant(
                        id: UUID().uuidString.lowercased(), ownerID: ownerID, clientID: row.clientID, agentID: agentID,
                        permissions: permissions, resource: row.request.resource, createdAt: now,
                        expiresAt: now + grantLifetime, boundAccountID: boundAccountID)
                    var state = row.state
                    guard state.approve(grantID: grant.id, now: now) else { return nil }
                    try Self.insertGrant(grant, connection)
                    guard try Self.save(state, of: row, now: now, connection) else { throw DeviceStoreError.raced }
                    return grant
                }
            }
        } catch DeviceStoreError.raced {
            return nil
        }
    }

    /// The owner denies the device authorization of `userCode`; false when it was no longer answerable.
    public func denyDevice(userCode: String, now: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                guard let row = try Self.deviceRow("d.user_code", .text(userCode), connection) else { return false }
                var state = row.state
                return try state.deny(now: now) && Self.save(state, of: row, now: now, connection)
            }
        }
    }

    /// A poll by `clientID` with `deviceCode` at `now` (RFC 8628 section 3.4), its effect (the poll time, a slower
    /// interval) written. A poll that loses a race with another change of the row is `slow_down`: two polls at once
    /// are too fast by definition.
    public func pollDevice(_ deviceCode: String, clientID: String, now: Int64) async throws -> DevicePoll {
        try await database.write { connection in
            try connection.transaction {
                guard let row = try Self.deviceRow("d.device_digest", .blob(OAuthDigest.of(deviceCode)), connection),
                    row.clientID == clientID
                else { return .unknown }
                var state = row.state
                let poll = state.poll(now: now)
                if state != row.state, try !Self.save(state, of: row, now: now, connection) {
                    return .refused(.slowDown(interval: state.interval))
                }
                guard case .approved(let grantID) = poll else { return .refused(poll) }
                guard
                    let grantRow = try connection.query(
                        "SELECT \(Self.grantColumns) FROM oauth_grants g WHERE g.id = ?", [.text(grantID)]
                    ).first, let grant = Self.grant(grantRow)
                else { return .refused(.denied) }
                return .approved(grant)
            }
        }
    }

    /// Marks `deviceCode` redeemed, if its state allows and nobody did first, and writes what `issue` hands out;
    /// false otherwise (the code was redeemed meanwhile, or its grant revoked).
    public func redeemDevice(_ deviceCode: String, grant: OAuthGrant, issue: OAuthIssue, now: Int64) async throws
        -> Bool
    {
        try await database.write { connection in
            try connection.transaction {
                guard let row = try Self.deviceRow("d.device_digest", .blob(OAuthDigest.of(deviceCode)), connection),
                    row.state.grantID == grant.id
                else { return false }
                var state = row.state
                guard state.redeem(now: now), try Self.save(state, of: row, now: now, connection) else { return false }
                try Self.insert(issue, grantID: grant.id, now: now, connection)
                return true
            }
        }
    }

    // MARK: - Rows

    /// Why a device change did not happen.
    public enum DeviceStoreError: Error, Sendable {
        /// Eight user codes in a row were taken (the table would have to hold billions).
        case userCodesExhausted
        /// The row changed between the read and the write (rolls the transaction back).
        case raced
    }

    /// One `oauth_device_codes` row: its key, version, client and request, and its state.
    struct DeviceRow {
        let digest: [UInt8]
        let version: Int64
        let clientID: String
        let request: DeviceRequest
        let state: OAuthDeviceCodeState
        let deniedAt: Int64?
        let redeemedAt: Int64?
    }

    /// The row whose `column` is `value`; a grant revoked before its redemption reads as denied.
    static func deviceRow(_ column: String, _ value: SQLValue, _ connection: any SQLConnection) throws -> DeviceRow? {
        guard
            let row = try connection.query(
                """
                SELECT d.device_digest, d.user_code, d.client_id, d.scope, d.resource, d.expires_at, d.poll_interval,
                d.last_polled_at, d.version, d.grant_id, d.denied_at, d.redeemed_at, g.revoked_at AS grant_revoked_at
                FROM oauth_device_codes d LEFT JOIN oauth_grants g ON g.id = d.grant_id WHERE \(column) = ?
                """, [value]
            ).first, let digest = row.blob("device_digest"), let userCode = row.text("user_code"),
            let clientID = row.text("client_id"), let permissions = row.text("scope").flatMap(MailPermissions.init),
            let resource = row.text("resource"), let expires = row.int("expires_at"),
            let interval = row.int("poll_interval"), let version = row.int("version")
        else { return nil }
        let (deniedAt, redeemedAt) = (row.int("denied_at"), row.int("redeemed_at"))
        let state = OAuthDeviceCodeState(
            expiresAt: expires, interval: interval, lastPolledAt: row.int("last_polled_at"),
            grantID: row.text("grant_id"), denied: deniedAt != nil || row.int("grant_revoked_at") != nil,
            redeemed: redeemedAt != nil)
        return DeviceRow(
            digest: digest, version: version, clientID: clientID,
            request: DeviceRequest(
                userCode: userCode, clientID: clientID, permissions: permissions, resource: resource,
                expiresAt: expires),
            state: state, deniedAt: deniedAt, redeemedAt: redeemedAt)
    }

    /// Writes `state` over `row` if its version is unchanged; whether it did.
    static func save(_ state: OAuthDeviceCodeState, of row: DeviceRow, now: Int64, _ connection: any SQLConnection)
        throws -> Bool
    {
        let denied = state.denied ? (row.deniedAt ?? now) : nil
        let redeemed = state.redeemed ? (row.redeemedAt ?? now) : nil
        func value(_ number: Int64?) -> SQLValue { number.map { .integer($0) } ?? .null }
        return try connection.run(
            """
            UPDATE oauth_device_codes SET poll_interval = ?, last_polled_at = ?, grant_id = ?, denied_at = ?,
                redeemed_at = ?, version = version + 1
            WHERE device_digest = ? AND version = ?
            """,
            [
                .integer(state.interval), value(state.lastPolledAt), state.grantID.map { .text($0) } ?? .null,
                value(denied), value(redeemed), .blob(row.digest), .integer(row.version),
            ]) == 1
    }
}
