import BrowserPages
import Passkeys
import ServerKit
import SignInMethods
import SignInProviders

/// The one "Sign-in methods" section of `/owner` (issues 54 and 56): every way the owner signs in, each shown by a
/// part of its own: the password (``SignInPasswordPart``), the passkeys
/// (``OwnerPasskeyParts/passkeys(_:ceremonies:csrfToken:)``, when passkeys are kept) and the linked providers
/// (``SignInProviderPart``, when providers are configured or one is linked). No change made here leaves the owner
/// without a way in (``SignInWays``).
struct OwnerSignInMethodsSection {
    var password: HTML
    /// Empty when the server keeps no passkeys.
    var passkeys: HTML
    /// Empty without providers.
    var providers: HTML
    /// The second factor's line and its link to `/owner/two-step`; empty when the policy is `off`.
    var twoStep: HTML = .empty

    func render() -> HTML {
        BrowserPage.signInMethods([password, passkeys, providers, twoStep])
    }

    /// The second factor's line: on or off, and the page that changes it.
    static func twoStep(on: Bool) -> HTML {
        """
        <h3>Two-step sign-in</h3>
        <p id="two-step-state">\(on ? "On: a password sign-in asks for a code from your app." : "Off.") \
        <a href="/owner/two-step" id="two-step-link">\(on ? "Manage" : "Set up")</a></p>

        """
    }
}

/// The one-time notices of the "Sign-in methods" section (its passkey, password and provider forms redirect to `/owner`
/// with one), carried by the ``OwnerBrowser/flashCookie`` as a fixed code: a fixed text, never anything typed.
enum OwnerSignInMethodsFlash: String, Equatable {
    /// A passkey was registered.
    case passkeyAdded = "passkey.added"
    /// A passkey was renamed.
    case passkeyRenamed = "passkey.renamed"
    /// A passkey was removed.
    case passkeyRemoved = "passkey.removed"
    /// A registration was refused (one message whatever failed).
    case passkeyRefused = "passkey.refused"
    /// A registration the device refused because it already holds a passkey of the owner's (the ceremony's
    /// `excludeCredentials`; the passkey script posts `failure=already-registered`).
    case passkeyAlreadyOnDevice = "passkey.already_on_device"
    /// The name was empty, too long, or held control characters.
    case invalidPasskeyName = "passkey.invalid_name"
    /// No such passkey of the owner's.
    case unknownPasskey = "passkey.unknown"
    /// The password was removed.
    case passwordRemoved = "password.removed"
    /// The password typed to confirm the removal was not the owner's.
    case wrongPassword = "password.wrong"
    /// The removal was not tried: too many wrong passwords (the password sign-in's backoff).
    case slowed = "password.slowed"
    case linked = "signin.linked"
    case alreadyLinked = "signin.already_linked"
    case linkedToAnother = "signin.linked_to_another"
    case unlinked = "signin.unlinked"
    /// The change would leave no way to sign in (``SignInWays``).
    case lastWay = "signin.last_way"
    /// A passkey not added, a provider not linked: the session's sign-in is not recent (issue 66 item 4).
    case proofNeeded = "signin.proof_needed"

    /// What `/owner` says.
    var words: String {
        switch self {
        case .passkeyAdded: "Passkey added: you can sign in with it now."
        case .passkeyRenamed: "Passkey renamed."
        case .passkeyRemoved: "Passkey removed: it no longer signs you in."
        case .passkeyRefused: PasskeyPageParts.registrationRefused
        case .passkeyAlreadyOnDevice: PasskeyPageParts.alreadyOnDevice
        case .invalidPasskeyName: "A passkey's name has 1 to 64 characters."
        case .unknownPasskey: "That passkey is not one of yours."
        case .passwordRemoved: SignInMessage.passwordRemoved
        case .wrongPassword: SignInMessage.passwordNotRemoved
        case .slowed: "Too many wrong passwords: try again in a while."
        case .linked: SignInMessage.linked(.linked).words
        case .alreadyLinked: SignInMessage.linked(.alreadyLinked).words
        case .linkedToAnother: SignInMessage.linked(.linkedToAnother).words
        case .unlinked: SignInMessage.unlinked
        case .lastWay: SignInMessage.lastWay
        case .proofNeeded: SignInMessage.proofNeeded
        }
    }

    /// The colour `/owner` says it in: done, or refused.
    var kind: PageNotice.Kind {
        switch self {
        case .passkeyAdded, .passkeyRenamed, .passkeyRemoved, .passwordRemoved, .linked, .unlinked: .success
        case .alreadyLinked: .warning
        case .passkeyRefused, .passkeyAlreadyOnDevice, .invalidPasskeyName, .unknownPasskey, .wrongPassword, .slowed,
            .linkedToAnother, .lastWay, .proofNeeded:
            .error
        }
    }

    /// What `/owner` shows.
    var notice: PageNotice { PageNotice(words, kind) }
}

extension OwnerService {
    /// The "Sign-in methods" section of `/owner` for `owner`; empty when neither passkeys nor providers are offered.
    /// - Throws: storage errors.
    func signInMethods(of owner: Owner, csrfToken: String) async throws -> HTML {
        let secondFactorOffered = configuration.secondFactor != .off
        guard passkeyStore != nil || !signInButtons.isEmpty || secondFactorOffered else { return .empty }
        let ways = try await signInWays(of: owner.id)
        var passkeyPart: HTML = .empty
        if let passkeyStore {
            passkeyPart = OwnerPasskeyParts.passkeys(
                try await passkeyStore.credentials(of: .owner(owner.id)), ceremonies: passkeys != nil,
                csrfToken: csrfToken)
        }
        let providerPart = SignInProviderPart(
            providers: signInButtons, identities: ways.identities, csrfToken: csrfToken, targets: .owners,
            time: OwnerInboxesPage.time
        ).render()
        return OwnerSignInMethodsSection(
            password: SignInPasswordPart(
                hasPassword: ways.hasPassword,
                removable: passkeyStore != nil && ways.keepsAWayIn(without: .password),
                action: "/owner/password/remove", csrfToken: csrfToken,
                withoutPassword:
                    "you sign in with your passkeys or linked providers. If you lose them, the operator can set a new "
                    + "password for you."
            ).render(),
            passkeys: passkeyPart, providers: providerPart,
            twoStep: secondFactorOffered
                ? OwnerSignInMethodsSection.twoStep(on: try await secondFactors.state(ownerID: owner.id).isOn) : .empty
        ).render()
    }
}
