import AgentPoW
import HTTP1

/// The body of `POST /api/v1/challenge`, with everything but the id, difficulty and expiry written once:
/// `{"challenge","difficulty","algorithm":"scrypt","scrypt":{"N":16384,"r":8,"p":1,"dkLen":64},"salt",
/// "expires_at","_next"}`.
struct ChallengeBodyTemplate: Sendable {
    private static let head: [UInt8] = Array("{\"challenge\":\"".utf8)
    private static let afterID: [UInt8] = Array("\",\"difficulty\":".utf8)
    private let middle: [UInt8]
    private let tail: [UInt8]

    init(salt: String, next: [String]) {
        middle = Array(
            (",\"algorithm\":\"scrypt\",\"scrypt\":{\"N\":\(AgentProofOfWork.n),\"r\":\(AgentProofOfWork.r),"
                + "\"p\":\(AgentProofOfWork.p),\"dkLen\":\(AgentProofOfWork.derivedKeyLength)},\"salt\":"
                + AgentJSON.string(salt) + ",\"expires_at\":").utf8)
        tail = Array((",\"_next\":" + AgentJSON.array(next) + "}").utf8)
    }

    /// The body for one challenge, as UTF-8 bytes. `id` must be hex (it is not escaped).
    func render(id: String, difficulty: Int, expiresAt: Int64) -> [UInt8] {
        var body = [UInt8]()
        body.reserveCapacity(Self.head.count + id.utf8.count + Self.afterID.count + middle.count + tail.count + 40)
        body.append(contentsOf: Self.head)
        body.append(contentsOf: id.utf8)
        body.append(contentsOf: Self.afterID)
        body.appendDecimal(Int64(difficulty))
        body.append(contentsOf: middle)
        body.appendDecimal(expiresAt)
        body.append(contentsOf: tail)
        return body
    }
}
