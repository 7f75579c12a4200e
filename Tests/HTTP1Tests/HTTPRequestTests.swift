import Testing

@testable import HTTP1

@Suite("HTTPRequest: a value over shared storage")
struct HTTPRequestTests {
    static func described(_ request: HTTPRequest) -> String {
        let headers = request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
        return "\(request.method) \(request.target) \(request.path) \(request.query ?? "-") \(request.version) "
            + "\(headers) \(request.body) \(request.remoteAddress) \(request.requestID)"
    }

    @Test("changing any field of a copy leaves the original as it was")
    func copiesAreIndependent() {
        let original = HTTPRequest(
            method: .POST, target: "/a?b=c", headers: HTTPHeaders([("Host", "x")]), body: [1],
            remoteAddress: "192.0.2.1", requestID: "r1")
        let before = Self.described(original)
        let changes: [(inout HTTPRequest) -> Void] = [
            { $0.method = .GET }, { $0.target = "/z" }, { $0.path = "/z" }, { $0.query = nil },
            { $0.version = .http1_0 }, { $0.headers.add("X", "y") }, { $0.body.append(2) },
            { $0.remoteAddress = "::1" }, { $0.requestID = "r2" },
        ]
        for change in changes {
            var copy = original
            change(&copy)
            #expect(Self.described(copy) != before)
            #expect(Self.described(original) == before)
        }
    }

    @Test("a request nothing shares is changed in place, without copying its fields")
    func uniqueIsChangedInPlace() {
        var request = HTTPRequest(method: .GET, target: "/")
        let storage = ObjectIdentifier(request.storage)
        request.remoteAddress = "192.0.2.1"
        request.headers.add("X-Request-Id", "abc")
        #expect(ObjectIdentifier(request.storage) == storage)
        let copy = request
        request.requestID = "abc"
        #expect(ObjectIdentifier(request.storage) != storage)
        #expect(ObjectIdentifier(copy.storage) == storage)
        #expect(copy.requestID == "")
    }
}
