import AgentClient
import ArgumentParser
import Foundation

/// `postern agent login --device`: the OAuth device flow (RFC 8628) for an agent without a browser. The code and
/// the page to enter it on go to standard error; the tokens to standard output.
struct DeviceLoginOptions: ParsableArguments {
    @Flag(help: "Sign in with the OAuth device flow: open the page shown on any device, approve, get OAuth tokens.")
    var device = false
    @Option(
        name: .customLong("client-id"),
        help: "With --device: an OAuth client registered for the device-code grant (default: register one).")
    var clientID: String?
    @Option(help: "With --device: the scopes to ask for, e.g. \"mail.read\" (default: the client's).")
    var scope: String?
    @Option(help: "With --device: the resource the token is for (default: <issuer>/mcp).")
    var resource: String?

    /// Runs the flow against the server at `base`.
    /// - Throws: ``AgentClientError`` on any refusal (denied, expired, unknown client).
    func login(_ base: URL) async throws -> (tokens: DeviceLoginClient.Tokens, clientID: String) {
        let client = try DeviceLoginClient()
        let endpoints = try await client.endpoints(issuer: base)
        var clientID = self.clientID ?? ""
        if self.clientID == nil {
            clientID = try await client.register(endpoints, name: "postern agent login --device")
        }
        let authorization = try await client.start(
            endpoints, clientID: clientID, scope: scope, resource: resource ?? endpoints.issuer + "/mcp")
        var words = "To sign in, open \(authorization.verificationURI) and enter the code \(authorization.userCode)\n"
        if let complete = authorization.verificationURIComplete { words += "(or open \(complete))\n" }
        words += "Waiting for the owner's answer (the code expires in \(authorization.expiresIn) s)...\n"
        FileHandle.standardError.write(Data(words.utf8))
        return (try await client.poll(endpoints, clientID: clientID, authorization: authorization), clientID)
    }
}
