import AuthCrypto
import JSON
import WebAuthn

/// The two passkey ceremonies end to end, for any page family (the owner pages, the Pro dashboard): the options the
/// browser's `navigator.credentials.create|get` takes, as JSON, and the check of its answer (the `PublicKeyCredential`
/// in its JSON form, every binary member base64url) against the relying party, the challenges and the stored passkeys.
///
/// The order of a finish, so that every ceremony spends its challenge whatever else is wrong:
/// 1. the answer is parsed (``PasskeyRefusal/malformedResponse``);
/// 2. the challenge `clientDataJSON` names is spent: it must have been issued for this ceremony and holder (nobody,
///    for a sign-in), not spent, not expired (``PasskeyRefusal/challengeNotIssued``);
/// 3. a sign-in finds the credential by its id (``PasskeyRefusal/unknownCredential``), refuses one marked possibly
///    cloned, and checks the user handle the authenticator returned against the stored one;
/// 4. ``RelyingParty`` verifies (``PasskeyRefusal/verification(_:)``); a counter that went back marks the passkey
///    possibly cloned (``PasskeyRefusal/possiblyCloned(_:)``), as does losing the counter's compare-and-set to another
///    sign-in with the same counter.
///
/// Every refusal is one type whose ``PasskeyRefusal/reason`` names it for logs, metrics and the audit trail; pages show
/// one generic message for all of them. Time is the caller's (`now`, Unix seconds).
public struct PasskeyCeremonies: Sendable {
    /// The relying party the ceremonies run for.
    public let party: RelyingParty
    /// The passkeys.
    public let store: PasskeyStore
    /// The ceremonies' challenges.
    public let challenges: PasskeyChallenges
    /// The name browsers show for the relying party.
    public let relyingPartyName: String

    /// How long the browser is told to wait for the person (the challenge's lifetime), in milliseconds.
    public static let timeoutMilliseconds = PasskeyChallenges.lifetime * 1000
    /// The algorithms offered at registration, in the order of preference: EdDSA, ES256, RS256.
    public static let algorithms: [COSEAlgorithm] = [.eddsa, .es256, .rs256]
    /// The bounds of an answer's JSON: an RS256 attestation is about 1.5 KiB, base64url a third more.
    static let jsonLimits = JSONValue.Limits(maximumBytes: 16 * 1024, maximumDepth: 4)

    /// Ceremonies for `party` over `store` and `challenges`.
    public init(
        party: RelyingParty, store: PasskeyStore, challenges: PasskeyChallenges, relyingPartyName: String = "Postern"
    ) {
        self.party = party
        self.store = store
        self.challenges = challenges
        self.relyingPartyName = relyingPartyName
    }

    /// The WebAuthn user handle of `holder`: the first 32 bytes of SHA-256 over its kind and id, the same on every
    /// instance and for every passkey of the holder (an authenticator keeps one discoverable credential per RP and
    /// user handle), and no personal data.
    public static func userHandle(of holder: PasskeyHolder) -> [UInt8] {
        switch holder {
        case .owner(let id): SHA256.hash(Array("postern passkey user\u{0}owner\u{0}\(id)".utf8))
        case .proUser(let id): SHA256.hash(Array("postern passkey user\u{0}pro\u{0}\(id)".utf8))
        }
    }

    // MARK: - Registration

    /// `PublicKeyCredentialCreationOptions` in JSON for `holder`, with a new challenge: a discoverable credential
    /// (resident key required), user verification required, attestation `none`, the holder's passkeys excluded.
    /// - Parameter name: the account name the authenticator shows (the holder's email).
    /// - Throws: `StorageError`.
    public func registrationOptions(for holder: PasskeyHolder, name: String, now: Int64) async throws -> [UInt8] {
        let challenge = try await challenges.issue(.registration, for: holder, now: now)
        let existing = try await store.credentials(of: holder)
        let options: JSONValue = [
            "rp": ["id": .string(party.id), "name": .string(relyingPartyName)],
            "user": [
                "id": .string(Base64URL.encode(Self.userHandle(of: holder))), "name": .string(name),
                "displayName": .string(name),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(Self.algorithms.map { ["type": "public-key", "alg": .int($0.rawValue)] }),
            "timeout": .int(Self.timeoutMilliseconds),
            "excludeCredentials": .array(
                existing.map { ["type": "public-key", "id": .string(Base64URL.encode($0.credentialID))] }),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true, "userVerification": "required",
            ],
            "attestation": "none",
        ]
        return options.serialize()
    }

    /// Checks a registration's answer for `holder` and stores the passkey under `name`.
    /// - Parameter response: the `PublicKeyCredential` JSON (`rawId`, `response.clientDataJSON`,
    ///   `response.attestationObject`).
    /// - Throws: ``PasskeyRefusal``; `StorageError`.
    public func register(
        _ response: [UInt8], for holder: PasskeyHolder, name: String, now: Int64
    ) async throws -> PasskeyCredential {
        guard let json = try? JSONValue.parse(response, limits: Self.jsonLimits),
            let rawID = Self.binary(json["rawId"]), let body = json["response"],
            let clientData = Self.binary(body["clientDataJSON"]),
            let attestation = Self.binary(body["attestationObject"])
        else { throw PasskeyRefusal.malformedResponse }
        let challenge = try await spend(clientData, .registration, for: holder, now: now)
        let verified: VerifiedRegistration
        do {
            verified = try party.verifyRegistration(
                credentialID: rawID, clientDataJSON: clientData, attestationObject: attestation, challenge: challenge,
                algorithms: Self.algorithms)
        } catch {
            throw PasskeyRefusal.verification(error)
        }
        do {
            return try await store.add(
                verified, for: holder, userHandle: Self.userHandle(of: holder), name: name, now: now)
        } catch PasskeyStoreError.duplicateCredential {
            throw PasskeyRefusal.duplicateCredential
        } catch PasskeyStoreError.invalidName {
            throw PasskeyRefusal.invalidName
        }
    }

    // MARK: - Sign-in

    /// `PublicKeyCredentialRequestOptions` in JSON with a new challenge issued to nobody: no allowed credentials (the
    /// authenticator offers its discoverable ones for the RP ID), user verification required.
    /// - Parameter client: the key of the client that asks (`ClientAddressKey`'s text), whose share the challenge
    ///   counts against.
    /// - Throws: ``PasskeyChallengesFull`` past the client's share or the ceiling; `StorageError`.
    public func signInOptions(client: String, now: Int64) async throws -> [UInt8] {
        let challenge = try await challenges.issue(.signIn, for: nil, client: client, now: now)
        let options: JSONValue = [
            "challenge": .string(Base64URL.encode(challenge)), "rpId": .string(party.id),
            "timeout": .int(Self.timeoutMilliseconds), "userVerification": "required", "allowCredentials": [],
        ]
        return options.serialize()
    }

    /// The credential id an answer names, for throttling before it is checked; nil when there is none.
    public static func credentialID(of response: [UInt8]) -> [UInt8]? {
        (try? JSONValue.parse(response, limits: jsonLimits)).flatMap { binary($0["rawId"]) }
    }

    /// Checks a sign-in's answer and records it: the passkey that signed, whose holder is who signed in.
    /// - Parameter response: the `PublicKeyCredential` JSON (`rawId`, `response.clientDataJSON`,
    ///   `response.authenticatorData`, `response.signature`, and `response.userHandle` when the authenticator gave
    ///   one).
    /// - Throws: ``PasskeyRefusal``; `StorageError`.
    public func signIn(_ response: [UInt8], now: Int64) async throws -> PasskeyCredential {
        guard let json = try? JSONValue.parse(response, limits: Self.jsonLimits),
            let rawID = Self.binary(json["rawId"]), !rawID.isEmpty, let body = json["response"],
            let clientData = Self.binary(body["clientDataJSON"]),
            let authenticatorData = Self.binary(body["authenticatorData"]),
            let signature = Self.binary(body["signature"])
        else { throw PasskeyRefusal.malformedResponse }
        var userHandle: [UInt8]?
        switch body["userHandle"] {
        case nil, .null?: userHandle = nil
        case let value?:
            guard let handle = Self.binary(value) else { throw PasskeyRefusal.malformedResponse }
            userHandle = handle
        }
        let challenge = try await spend(clientData, .signIn, for: nil, now: now)
        guard let credential = try await store.credential(withID: rawID) else {
            throw PasskeyRefusal.unknownCredential
        }
        guard credential.clonedAt == nil else { throw PasskeyRefusal.possiblyCloned(credential) }
        if let userHandle, !constantTimeEquals(userHandle, credential.userHandle) {
            throw PasskeyRefusal.userHandleMismatch
        }
        let verified: VerifiedAssertion
        do {
            verified = try party.verifyAssertion(
                credentialID: rawID, clientDataJSON: clientData, authenticatorData: authenticatorData,
                signature: signature, challenge: challenge, credential: credential.stored)
        } catch .possiblyCloned {
            try await store.markPossiblyCloned(credentialID: rawID, now: now)
            throw PasskeyRefusal.possiblyCloned(credential)
        } catch {
            throw PasskeyRefusal.verification(error)
        }
        guard
            try await store.recordSignIn(
                credentialID: rawID, expected: credential.signCount, signCount: verified.signCount,
                backupState: verified.backupState, now: now)
        else {
            // Another sign-in recorded the same counter first: two assertions with one counter value.
            try await store.markPossiblyCloned(credentialID: rawID, now: now)
            throw PasskeyRefusal.possiblyCloned(credential)
        }
        return credential
    }

    // MARK: - Shared steps

    /// Spends the challenge `clientData` names; its bytes for the relying party's check.
    private func spend(
        _ clientData: [UInt8], _ ceremony: PasskeyChallenges.Ceremony, for holder: PasskeyHolder?, now: Int64
    ) async throws -> [UInt8] {
        guard let json = try? JSONValue.parse(clientData, limits: Self.jsonLimits),
            let text = json["challenge"]?.stringValue, let challenge = Base64URL.decode(text)
        else { throw PasskeyRefusal.malformedResponse }
        guard try await challenges.consume(challenge, ceremony, for: holder, now: now) else {
            throw PasskeyRefusal.challengeNotIssued
        }
        return challenge
    }

    /// The bytes of a base64url JSON string.
    static func binary(_ value: JSONValue?) -> [UInt8]? {
        value?.stringValue.flatMap(Base64URL.decode)
    }
}

/// Why a passkey ceremony was refused. Pages answer every case with one generic message and no session.
public enum PasskeyRefusal: Error, Sendable, Equatable {
    /// The answer is not the `PublicKeyCredential` JSON the ceremony expects.
    case malformedResponse
    /// The challenge was not issued for this ceremony and holder, was spent already, or expired.
    case challengeNotIssued
    /// No passkey has the credential id.
    case unknownCredential
    /// The user handle the authenticator returned is not the passkey's.
    case userHandleMismatch
    /// The relying party refused the answer.
    case verification(WebAuthnError)
    /// The passkey's counter went back (now or before): it is marked possibly cloned and signs nobody in.
    case possiblyCloned(PasskeyCredential)
    /// The credential is registered already.
    case duplicateCredential
    /// The passkey's name is empty, too long or holds control characters.
    case invalidName

    /// The refusal in a word, for logs, metrics and the audit trail.
    public var reason: String {
        switch self {
        case .malformedResponse: "malformed"
        case .challengeNotIssued: "challenge"
        case .unknownCredential: "unknown_credential"
        case .userHandleMismatch: "user_handle"
        case .verification(let error): "verification." + Self.word(error)
        case .possiblyCloned: "possibly_cloned"
        case .duplicateCredential: "duplicate"
        case .invalidName: "invalid_name"
        }
    }

    private static func word(_ error: WebAuthnError) -> String {
        switch error {
        case .malformedClientData: "client_data"
        case .malformedAttestationObject: "attestation_object"
        case .malformedAuthenticatorData: "authenticator_data"
        case .malformedPublicKey: "public_key"
        case .wrongCeremonyType: "type"
        case .challengeMismatch: "challenge"
        case .originNotAllowed: "origin"
        case .crossOrigin: "cross_origin"
        case .relyingPartyMismatch: "rp_id_hash"
        case .userNotPresent: "user_present"
        case .userNotVerified: "user_verified"
        case .invalidBackupFlags: "backup_flags"
        case .missingAttestedCredential: "attested_credential"
        case .credentialMismatch: "credential_id"
        case .unsupportedAlgorithm: "algorithm"
        case .algorithmMismatch: "algorithm_mismatch"
        case .badSignature: "signature"
        case .possiblyCloned: "possibly_cloned"
        }
    }
}
