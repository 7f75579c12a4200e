import MailboxAccounts
import Testing

extension TestHTTPClient {
    /// A Mail.td account made the way a client makes one: `GET /api/challenge`, the proof of work solved, then
    /// `POST /api/accounts` with `address` and `password`. Records an issue unless it answered 201.
    /// - Returns: the answer's JSON (`id`, `address`, `token`).
    func createMailboxAccount(_ address: String, password: String = "secret1") async throws -> [String: Any] {
        let challenge = try await request("GET", "/api/challenge").json()
        let id = try #require(challenge["id"] as? String)
        let nonce = ProofOfWork.solve(
            salt: try #require(challenge["salt"] as? String), difficulty: challenge["difficulty"] as? Int ?? 0)
        let created = try await request(
            "POST", "/api/accounts", headers: [("Content-Type", "application/json")],
            body: Array(
                #"{"address":"\#(address)","password":"\#(password)","pow":{"id":"\#(id)","nonce":"\#(nonce)"}}"#.utf8))
        #expect(created.status == 201)
        return try created.json()
    }
}
