import HTTP1
import ServerKit

/// Requests sent straight through a service's routes, as the server would hand them over, read as a client reads
/// the answer (``TestResponse``): a service harness's client.
public struct RouteClient: TestRequestSending, @unchecked Sendable {
    public let router: ContextRouter
    let remoteAddress: String
    let requestID: String

    public init(router: ContextRouter, remoteAddress: String = "192.0.2.7", requestID: String) {
        self.router = router
        self.remoteAddress = remoteAddress
        self.requestID = requestID
    }

    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> TestResponse {
        let request = HTTPRequest(
            method: HTTPMethod(rawValue: method), target: path, version: .http1_1, headers: HTTPHeaders(headers),
            body: body, remoteAddress: remoteAddress, requestID: requestID)
        let response = await router.respond(to: request)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: response.body)
    }
}
