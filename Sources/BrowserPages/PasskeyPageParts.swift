import AuthCrypto
import ClientAddress
import HTTP1
import Passkeys
import ServerKit

/// The passkey parts every page family draws alike (issue 56), each run by the passkey forms' script (`data-passkey`,
/// `data-options`) and each posting to the family's own `base` path (`/owner/passkeys`, `/inbox/passkeys`).
public enum PasskeyPageParts {
    /// A registration refused, whatever failed (an error notice).
    public static let registrationRefused =
        "That passkey could not be used: it was not added. Try again, or add one on another device."
    /// A registration the device refused because it already holds a passkey of this account (the form's
    /// `failure=already-registered`, posted by the script on the browser's `InvalidStateError`).
    public static let alreadyOnDevice =
        "This device already holds a passkey for your account: sign in with it, or add a passkey on another device."
    /// The `failure` value the passkey script posts when the device already holds one of the account's passkeys.
    public static let alreadyRegisteredFailure = "already-registered"

    /// The passkeys' table (`#passkeys`, a `.passkey` row each with its rename and remove forms posting to
    /// `<base>/<id>/rename|remove`), or `#no-passkeys` when there is none.
    /// - Parameter time: a Unix time as the page shows times.
    public static func list(
        _ passkeys: [PasskeyCredential], base: String, hidden: HTML, time: (Int64) -> HTML
    ) -> HTML {
        guard !passkeys.isEmpty else {
            return "<p class=\"hint\" id=\"no-passkeys\">No passkey yet: you sign in with your email and password.</p>\n"
        }
        var rows: HTML = ""
        for passkey in passkeys {
            let kind: HTML =
                passkey.clonedAt != nil
                ? "<strong class=\"cloned\">refused: possibly cloned, remove it</strong>"
                : passkey.backupEligible ? "synced passkey" : "this device only"
            rows += """
                <tr class="passkey" data-passkey-id="\(passkey.id)">
                <td class="passkey-name" data-label="Name">\(passkey.name)</td>
                <td data-label="Added">\(time(passkey.createdAt))</td>
                <td class="passkey-used" data-label="Last used">\(passkey.lastUsedAt.map(time) ?? "never")</td>
                <td class="passkey-kind" data-label="Kind">\(kind)</td>
                <td class="actions"><form method="post" action="\(base)/\(passkey.id)/rename" class="inline rename-passkey">
                \(hidden)<label class="visually-hidden" for="rename-\(passkey.id)">New name</label>
                <input id="rename-\(passkey.id)" name="name" maxlength="\(PasskeyStore.maximumNameLength)" required value="\(passkey.name)">
                <button type="submit">Rename</button></form>
                <form method="post" action="\(base)/\(passkey.id)/remove" class="inline remove-passkey">
                \(hidden)<button type="submit" class="danger">Remove</button></form></td>
                </tr>

                """
        }
        return """
            <div class="table-wrap">
            <table id="passkeys">
            <thead><tr><th>Passkey</th><th>Added</th><th>Last used</th><th>Kind</th><th></th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </div>

            """
    }

    /// The form that registers a new passkey (`#passkey-register`: `name`, `credential`), its options from
    /// `<base>/options`, and the script from `script`.
    public static func register(base: String, script: String, hidden: HTML) -> HTML {
        """
        <form method="post" action="\(base)" id="passkey-register" data-passkey="register" data-options="\(base)/options">
        \(hidden)<input type="hidden" name="credential" value=""><input type="hidden" name="failure" value="">
        <label for="passkey-name">Name of the new passkey</label>
        <input id="passkey-name" name="name" maxlength="\(PasskeyStore.maximumNameLength)" required value="Passkey">
        <button type="submit" id="passkey-add" hidden>Add a passkey</button>
        <noscript><p class="hint">Adding a passkey needs JavaScript.</p></noscript>
        </form>
        <script src="\(script)" defer></script>

        """
    }

    /// The passkey button of a sign-in page (`#passkey-sign-in`, `#passkey-button`, `#passkey-needs-js`) posting
    /// `credential` and the `hidden` fields to `action`, its options from `<action>/options`, and the script from
    /// `script`.
    public static func signIn(action: String, script: String, hidden: HTML) -> HTML {
        """
        <form method="post" action="\(action)" id="passkey-sign-in" data-passkey="sign-in" data-options="\(action)/options">
        \(hidden)<input type="hidden" name="credential" value="">
        <button type="submit" id="passkey-button" hidden>Sign in with a passkey</button>
        <noscript><p class="hint" id="passkey-needs-js">Signing in with a passkey needs JavaScript; your email and \
        password still work.</p></noscript>
        </form>
        <script src="\(script)" defer></script>
        """
    }
}

extension PageRoutes {
    /// The passkey sign-in's routes of a page family, each under the page budget: `GET` the forms' `script`,
    /// `POST <path>/options` (the sign-in's options, with the client's key for its share of challenges) and `POST <path>`
    /// (the signed answer, with the client's throttle key and address).
    public func addPasskeySignIn(
        to router: inout ContextRouter, script: PageScript, path: String, bodyLimit: Int,
        options: @escaping @Sendable (HTTPRequest, ClientAddressKey) async throws -> HTTPResponse,
        signIn: @escaping @Sendable (HTTPRequest, ClientAddressKey, _ address: String?) async throws -> HTTPResponse
    ) {
        router.add(.GET, script.path, limited { request, _ in script.response(to: request) })
        router.add(.POST, path + "/options", bodyLimit: bodyLimit, limited { request, context in try await options(request, context.clientKey) })
        router.add(
            .POST, path, bodyLimit: bodyLimit,
            limited { request, context in
                try await signIn(request, context.clientKey, context.clientAddress?.description)
            })
    }
}

/// The first step of a passkey sign-in at any page family's door, before the answer is checked: the throttle's keys
/// for the credential id the answer names (its "name") and the client, and whether the door is shut for now.
public struct PasskeySignInAttempt: Sendable {
    /// The answer's bytes (the `credential` field).
    public let response: [UInt8]
    /// The throttle's keys of this attempt.
    public let keys: SignInThrottle.Keys
    /// Seconds until the throttle lets this attempt through; 0 when it may go on.
    public let retryAfter: Int64

    /// Reads `credential` and asks `throttle` in `namespace` at `now`.
    /// - Throws: `StorageError`.
    public init(
        credential: String?, client: ClientAddressKey, namespace: String, throttle: SignInThrottle, now: Int64
    ) async throws {
        response = Array((credential ?? "").utf8)
        let named = PasskeyCeremonies.credentialID(of: response).map(Base64URL.encode) ?? ""
        keys = SignInThrottle.keys(name: named, client: client, namespace: namespace)
        retryAfter = max(0, try await throttle.blockedUntil(keys) - now)
    }
}
