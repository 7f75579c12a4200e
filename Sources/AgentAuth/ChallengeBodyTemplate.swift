/// The body of `POST /api/v1/challenge`, with everything but the id, difficulty and expiry written once:
/// `{"challenge","difficulty","algorithm":"scrypt","scrypt":{"N":16384,"r":8,"p":1,"dkLen":64},"salt",
/// "expires_at","_next"}`.
struct ChallengeBodyTemplate: Sendable {
    private let middle: String
    private let tail: String

    init(salt: String, next: [String]) {
        middle =
            ",\"algorithm\":\"scrypt\",\"scrypt\":{\"N\":\(AgentProofOfWork.n),\"r\":\(AgentProofOfWork.r),"
            + "\"p\":\(AgentProofOfWork.p),\"dkLen\":\(AgentProofOfWork.derivedKeyLength)},\"salt\":"
            + AgentJSON.string(salt) + ",\"expires_at\":"
        tail = ",\"_next\":" + AgentJSON.array(next) + "}"
    }

    /// The body for one challenge. `id` must be hex (it is not escaped).
    func render(id: String, difficulty: Int, expiresAt: Int64) -> String {
        "{\"challenge\":\"" + id + "\",\"difficulty\":" + String(difficulty) + middle + String(expiresAt) + tail
    }
}
