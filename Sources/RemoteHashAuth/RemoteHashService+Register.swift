import EmailAddresses
import Fetch
import Foundation
import HTTP1
import JWT
import ServerKit

extension RemoteHashService {
    /// `POST /register`: validate, refuse a taken email, fetch and parse the hash, verify that the
    /// password matches it, then store the email and URL (never the hash).
    ///
    /// JSON: 201 `{"email","password_hash_url"}` or 422 `{"error"}`. HTML: 303 to `/` with a one-time
    /// "Registration succeeded." flash, or the page again (422) with the message.
    func register(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let wantsJSON = request.acceptsJSON
        guard let fields = fields(request) else {
            return wantsJSON
                ? Self.jsonError(RemoteHashFailure(.badRequest, RemoteHashMessage.badBody))
                : registerPage(request, [:], RemoteHashFailure(.badRequest, RemoteHashMessage.badBody))
        }
        if needsCSRF(request) && !csrfValid(request, fields) { return csrfRefused(request, form: "register", fields) }
        let email = normalizedEmail(fields["email"])
        let url = (fields["password_hash_url"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        do throws(RemoteHashFailure) {
            try await registerUser(email: email, url: url, password: fields["password"] ?? "")
        } catch {
            report(error, context)
            return wantsJSON ? Self.jsonError(error) : registerPage(request, fields, error)
        }
        if wantsJSON {
            return .noStoreJSON(.created, ["email": .string(email), "password_hash_url": .string(url)])
        }
        var response = HTTPResponse(status: .seeOther)
        response.headers.replaceOrAdd("Location", "/")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        let now = clock()
        response.headers.add("Set-Cookie", cookies.signedSetCookie(CookieSigner.flashCookie, RemoteHashMessage.registered, now: now))
        response.headers.add("Set-Cookie", cookies.signedSetCookie(CookieSigner.loginEmailCookie, email, now: now))
        return response
    }

    /// The checks of registration in order, cheapest first (email, then URL, then the fetch, then
    /// Argon2); throws the first failure, as the original reports its first validation error.
    func registerUser(email: String, url: String, password: String) async throws(RemoteHashFailure) {
        if email.isEmpty { throw .unprocessable(RemoteHashMessage.emailBlank) }
        if !RemoteHashService.isValidEmail(email) { throw .unprocessable(RemoteHashMessage.emailInvalid) }
        do {
            if try await users.find(email: email) != nil {
                throw RemoteHashFailure.unprocessable(RemoteHashMessage.emailTaken)
            }
        } catch let failure as RemoteHashFailure {
            throw failure
        } catch {
            throw .unforeseen(error)
        }
        if url.isEmpty { throw .unprocessable(RemoteHashMessage.urlBlank) }
        if (try? FetchURL(parsing: url)) == nil { throw .unprocessable(RemoteHashMessage.urlInvalid) }
        let hash = try await verifier.currentHash(at: url)
        guard try await verifier.verify(password, against: hash) else {
            throw .unprocessable(RemoteHashMessage.passwordMismatch)
        }
        let inserted: Bool
        do {
            inserted = try await users.insert(email: email, passwordHashURL: url, now: clock())
        } catch {
            throw .unforeseen(error)
        }
        if !inserted { throw .unprocessable(RemoteHashMessage.emailTaken) }
    }

    private func registerPage(_ request: HTTPRequest, _ fields: [String: String], _ failure: RemoteHashFailure)
        -> HTTPResponse
    {
        failurePage(request, failure, form: "register") { page in
            page.registerEmail = fields["email"] ?? ""
            page.registerURL = fields["password_hash_url"] ?? ""
        }
    }

    /// Trimmed and normalised as every address is (``EmailAddress/key(_:)``: ASCII case only, the domain's IDNA
    /// form); the table holds that form and compares it exactly.
    func normalizedEmail(_ raw: String?) -> String {
        EmailAddress.key((raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A pragmatic address check: `local@domain`, no spaces or controls, a dotted domain of
    /// letters, digits and hyphens, at most 254 characters.
    static func isValidEmail(_ email: String) -> Bool {
        guard email.utf8.count <= 254 else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return false }
        let localAllowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.!#$%&'*+/=?^_`{|}~-")
        guard parts[0].allSatisfy({ localAllowed.contains($0) }), !parts[0].hasPrefix("."), !parts[0].hasSuffix("."),
            !parts[0].contains("..")
        else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        let labelAllowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        for label in labels {
            guard !label.isEmpty, label.count <= 63, label.allSatisfy({ labelAllowed.contains($0) }),
                !label.hasPrefix("-"), !label.hasSuffix("-")
            else { return false }
        }
        return true
    }
}
