import Fetch
import Foundation
import HTTP1

/// The device authorization grant (RFC 8628) from the device's side, as `postern agent login --device` runs it:
/// find the endpoints in the server's metadata (RFC 8414), register a public client for the device-code grant
/// unless one is given (RFC 7591), ask for a device code, show the code, poll by ``DevicePollSchedule``.
public struct DeviceLoginClient: Sendable {
    /// The device-code grant type.
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The endpoints of the server's metadata this flow uses.
    public struct Endpoints: Sendable, Equatable {
        /// The issuer, which the server's resources are named after (`<issuer>/mcp`).
        public let issuer: String
        public let deviceAuthorization: String
        public let token: String
        public let registration: String?
    }

    /// A device authorization response (RFC 8628 section 3.2).
    public struct Authorization: Sendable, Equatable {
        public let deviceCode: String
        public let userCode: String
        public let verificationURI: String
        public let verificationURIComplete: String?
        public let expiresIn: Int
        public let interval: Int?
    }

    /// The tokens the owner's approval bought.
    public struct Tokens: Sendable, Equatable {
        public let accessToken: String
        public let refreshToken: String?
        public let expiresIn: Int
        public let scope: String?
    }

    private let http: Fetcher

    /// - Parameter timeout: the deadline of each request. Default 30 s.
    /// - Throws: `FetchError` when the client cannot be set up.
    public init(timeout: Duration = .seconds(30)) throws {
        http = try AgentClient.fetcher(timeout: timeout)
    }

    /// The endpoints `issuer` publishes at `/.well-known/oauth-authorization-server`.
    /// - Throws: ``AgentClientError`` when the metadata cannot be read or lists no device authorization endpoint.
    public func endpoints(issuer: URL) async throws -> Endpoints {
        let url = issuer.appendingPathComponent(".well-known/oauth-authorization-server").absoluteString
        let (status, body) = try await send(url, method: "GET")
        guard status == 200, let issuer = body["issuer"] as? String, let token = body["token_endpoint"] as? String
        else {
            throw AgentClientError(status: status, message: "the server's OAuth metadata cannot be read", hint: nil)
        }
        guard let device = body["device_authorization_endpoint"] as? String else {
            throw AgentClientError(
                status: status, message: "the server does not offer the device flow",
                hint: "its operator turned POSTERN_OAUTH_DEVICE_AUTHORIZATION off")
        }
        return Endpoints(
            issuer: issuer, deviceAuthorization: device, token: token,
            registration: body["registration_endpoint"] as? String)
    }

    /// Registers a public client named `name` for the device-code and refresh grants; its id.
    public func register(_ endpoints: Endpoints, name: String) async throws -> String {
        guard let registration = endpoints.registration else {
            throw AgentClientError(status: 0, message: "the server offers no registration; pass --client-id", hint: nil)
        }
        let request: [String: Any] = [
            "client_name": name, "grant_types": [Self.grantType, "refresh_token"], "token_endpoint_auth_method": "none",
        ]
        let (status, body) = try await send(
            registration, json: try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys]))
        guard status == 201, let clientID = body["client_id"] as? String else { throw Self.refusal(status, body) }
        return clientID
    }

    /// Asks for a device code for `clientID`, `scope` (nil: the client's) on `resource`.
    public func start(_ endpoints: Endpoints, clientID: String, scope: String?, resource: String) async throws
        -> Authorization
    {
        var fields = [("client_id", clientID), ("resource", resource)]
        if let scope { fields.append(("scope", scope)) }
        let (status, body) = try await send(endpoints.deviceAuthorization, form: fields)
        guard status == 200, let deviceCode = body["device_code"] as? String,
            let userCode = body["user_code"] as? String,
            let uri = body["verification_uri"] as? String, let expiresIn = body["expires_in"] as? Int
        else { throw Self.refusal(status, body) }
        return Authorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
            verificationURIComplete: body["verification_uri_complete"] as? String, expiresIn: expiresIn,
            interval: body["interval"] as? Int)
    }

    /// Polls the token endpoint for `authorization` until the owner answers or the code expires, waiting as
    /// ``DevicePollSchedule`` says (through `sleep`, so that tests need not wait).
    /// - Throws: ``AgentClientError``: denied, expired, or another refusal.
    public func poll(
        _ endpoints: Endpoints, clientID: String, authorization: Authorization,
        sleep: @Sendable (Int) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) async throws -> Tokens {
        var schedule = DevicePollSchedule(interval: authorization.interval, expiresIn: authorization.expiresIn)
        var next = schedule.first()
        while case .wait(let seconds) = next {
            try await sleep(seconds)
            let (status, body) = try await send(
                endpoints.token,
                form: [
                    ("grant_type", Self.grantType), ("device_code", authorization.deviceCode), ("client_id", clientID),
                ])
            if status == 200, let access = body["access_token"] as? String {
                return Tokens(
                    accessToken: access, refreshToken: body["refresh_token"] as? String,
                    expiresIn: body["expires_in"] as? Int ?? 0, scope: body["scope"] as? String)
            }
            guard let code = body["error"] as? String else { throw Self.refusal(status, body) }
            next = schedule.next(afterError: code, description: body["error_description"] as? String)
        }
        switch next {
        case .stop(.denied): throw AgentClientError(status: 400, message: "the owner denied the request", hint: nil)
        case .stop(.expired):
            throw AgentClientError(
                status: 400, message: "the code expired before the owner answered", hint: "start again")
        case .stop(.refused(let code, let description)):
            throw AgentClientError(status: 400, message: code, hint: description)
        case .wait: throw AgentClientError(status: 0, message: "polling ended unexpectedly", hint: nil)
        }
    }

    // MARK: - HTTP

    private static func refusal(_ status: Int, _ body: [String: Any]) -> AgentClientError {
        AgentClientError(
            status: status, message: body["error"] as? String ?? "unexpected response",
            hint: body["error_description"] as? String)
    }

    /// Sends a GET, a form POST or a JSON POST; the status and the JSON object body (empty when it is none).
    private func send(
        _ url: String, method: String = "POST", form: [(String, String)]? = nil, json: Data? = nil
    ) async throws -> (Int, [String: Any]) {
        let response: FetchResponse
        do {
            if method == "GET" {
                response = try await http.get(url, headers: [("Accept", "application/json")])
            } else {
                let contentType = form != nil ? "application/x-www-form-urlencoded" : "application/json"
                let body = form.map { Array(PercentEncoding.query($0).utf8) } ?? json.map { Array($0) } ?? []
                response = try await http.post(
                    url, headers: [("Accept", "application/json"), ("Content-Type", contentType)], body: body)
            }
        } catch {
            throw AgentClientError(status: 0, message: "request to \(url) failed: \(error)", hint: nil)
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }
}
