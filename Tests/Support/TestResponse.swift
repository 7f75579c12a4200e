import Foundation
import Testing

/// A response as a test client reads it: from a socket (PosternAppTests' `TestHTTPClient`) or from a service's
/// routes (the surfaces' harnesses).
public struct TestResponse: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    /// - Throws: when the body is not JSON or not an object (the test fails, naming the body).
    public func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], "not an object: \(text)")
    }

    /// The token of an `Authorization: Bearer <token>` response header.
    public var bearer: String? {
        guard let value = header("Authorization"), value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst(7))
    }
}

/// Anything a test sends HTTP requests through: a socket to a running server, or a service's routes.
public protocol TestRequestSending: Sendable {
    /// Sends one request and reads its response.
    func request(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) async throws
        -> TestResponse
}

extension TestRequestSending {
    /// Sends `object` as a JSON body.
    public func json(
        _ method: String, _ path: String, _ object: Any, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: object)
        return try await request(
            method, path, headers: headers + [("Content-Type", "application/json")], body: [UInt8](body))
    }
}
