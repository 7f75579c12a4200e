import Testing

@testable import SigningKeys

@Suite("KeySchedule: when a shared key signs, retires and leaves")
struct KeyScheduleTests {
    func entry(_ kid: String, _ kind: KeyInfo.Kind = .hmac, signsFrom: Int64, generation: Int64) -> KeySchedule.Entry {
        KeySchedule.Entry(kid: kid, kind: kind, createdAt: signsFrom - 10, signsFrom: signsFrom, generation: generation)
    }

    @Test("the last key whose time has come signs; a published key waits; its predecessor retires when it starts")
    func promotion() {
        let first = entry("a", signsFrom: 100, generation: 1)
        let second = entry("b", signsFrom: 500, generation: 3)
        let rsa = entry("r", .rsa, signsFrom: 100, generation: 2)
        let schedule = KeySchedule([second, rsa, first])
        #expect(schedule.active(.hmac, at: 499) == first)
        #expect(schedule.pending(.hmac, at: 499) == [second])
        #expect(schedule.retiredAt(first, at: 499) == nil)
        #expect(schedule.active(.hmac, at: 500) == second)
        #expect(schedule.pending(.hmac, at: 500).isEmpty)
        #expect(schedule.retiredAt(first, at: 500) == 500)
        #expect(schedule.active(.rsa, at: 10_000) == rsa)
        #expect(schedule.retiredAt(rsa, at: 10_000) == nil)
        #expect(schedule.active(.hmac, at: 99) == nil)
    }

    @Test("keys made in the same second sign in the order they were made")
    func sameSecond() {
        let older = entry("z", signsFrom: 100, generation: 1)
        let newer = entry("a", signsFrom: 100, generation: 2)
        #expect(KeySchedule([newer, older]).active(.hmac, at: 100) == newer)
        #expect(KeySchedule([newer, older]).retiredAt(older, at: 100) == 100)
    }

    @Test("a retired key expires after the retention; the signing key and waiting keys never do")
    func expiry() {
        let first = entry("a", signsFrom: 100, generation: 1)
        let second = entry("b", signsFrom: 500, generation: 2)
        let third = entry("c", signsFrom: 900, generation: 3)
        let schedule = KeySchedule([first, second, third])
        #expect(schedule.expired(at: 600, retention: 100).isEmpty)
        #expect(schedule.expired(at: 601, retention: 100) == [first])
        #expect(schedule.expired(at: 1_000_000, retention: 100) == [first, second])
    }
}
