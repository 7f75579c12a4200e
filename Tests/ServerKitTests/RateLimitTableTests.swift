import ClientAddress
import PosternTestSupport
import Testing

@testable import ServerKit

@Suite("Rate-limit table")
struct RateLimitTableTests {
    enum Class: Hashable, Sendable {
        case fast, slow
    }

    static func rates(_ rateClass: Class) -> TokenBucketRate {
        switch rateClass {
        case .fast: TokenBucketRate(requests: 8, perSeconds: 1)
        case .slow: TokenBucketRate(requests: 1, perSeconds: 8)
        }
    }

    static func key(_ peer: String) -> ClientAddressKey { ClientAddressKey(peer: peer) }

    static func table(_ clock: TestClock, capacity: Int = 1024) -> RateLimitTable<Class> {
        RateLimitTable(capacity: capacity, clock: clock.monotonic, rates: rates)
    }

    @Test("a take of several tokens (a volume) takes all or none, never more than the bucket holds")
    func weightedTake() {
        let clock = TestClock(0)
        let table = Self.table(clock)
        let client = Self.key("192.0.2.9")
        #expect(!table.take(.fast, for: client, cost: 9).allowed, "more than the bucket holds is never allowed")
        #expect(table.take(.fast, for: client, cost: 5).remaining == 3)
        let refused = table.take(.fast, for: client, cost: 4)
        #expect(!refused.allowed)
        // One token refills every 125 ms: the fourth is there 125 ms later, and the refusal said so.
        #expect(refused.retryAfterSeconds == 1)
        #expect(table.take(.fast, for: client, cost: 3).allowed, "the refusal took nothing")
        clock.advance(milliseconds: 500)
        #expect(table.take(.fast, for: client, cost: 4).allowed)
        #expect(!table.take(.fast, for: client).allowed)
    }

    @Test("a bucket allows its burst, refuses with Retry-After and RateLimit-* values, and refills by the clock")
    func burstAndRefill() {
        let clock = TestClock(0)
        let table = Self.table(clock)
        let client = Self.key("192.0.2.1")
        for index in 0..<8 {
            #expect(
                table.take(.fast, for: client)
                    == RateLimitDecision(
                        allowed: true, limit: 8, remaining: 7 - index, resetSeconds: 1, retryAfterSeconds: 0))
        }
        #expect(
            table.take(.fast, for: client)
                == RateLimitDecision(allowed: false, limit: 8, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1))
        // 125 ms later one token (8 per second) is back, and only one.
        clock.advance(milliseconds: 125)
        #expect(table.take(.fast, for: client).allowed)
        #expect(!table.take(.fast, for: client).allowed)
        // A partly refilled bucket reports whole tokens only.
        clock.advance(milliseconds: 300)
        #expect(table.take(.fast, for: client).remaining == 1)
    }

    @Test("each class has its own bucket per client; a slow class says how long to wait")
    func perClass() {
        let clock = TestClock(0)
        let table = Self.table(clock)
        let client = Self.key("198.51.100.7")
        #expect(table.take(.slow, for: client).allowed)
        clock.advance(seconds: 1)
        let refused = table.take(.slow, for: client)
        #expect(!refused.allowed)
        #expect(refused.limit == 1)
        #expect(refused.retryAfterSeconds == 7)
        #expect(refused.resetSeconds == 7)
        // The fast class and another client are untouched.
        #expect(table.take(.fast, for: client).remaining == 7)
        #expect(table.take(.slow, for: Self.key("198.51.100.8")).allowed)
        clock.advance(milliseconds: 6_999)
        #expect(!table.take(.slow, for: client).allowed)
        clock.advance(milliseconds: 1)
        #expect(table.take(.slow, for: client).allowed)
        #expect(table.rate(of: .slow) == TokenBucketRate(requests: 1, perSeconds: 8))
    }

    @Test("every address of one IPv6 /64 draws from one bucket; IPv4-mapped and plain IPv4 are one client")
    func keyedByClientAddressKey() {
        let table = Self.table(TestClock(0))
        for index in 0..<8 {
            #expect(table.take(.fast, for: Self.key("2001:db8:0:1::\(index + 1)")).allowed)
        }
        #expect(!table.take(.fast, for: Self.key("2001:db8:0:1:ffff:ffff:ffff:fffe")).allowed)
        #expect(table.take(.fast, for: Self.key("2001:db8:0:2::1")).allowed)
        for _ in 0..<8 { #expect(table.take(.fast, for: Self.key("192.0.2.9")).allowed) }
        #expect(!table.take(.fast, for: Self.key("::ffff:192.0.2.9")).allowed)
    }

    @Test("the clock is the injected one: nothing refills without it, and a clock set back neither refills nor drains")
    func injectedClock() {
        let clock = TestClock(100)
        let table = Self.table(clock)
        let client = Self.key("203.0.113.4")
        #expect(table.take(.slow, for: client).allowed)
        for _ in 0..<3 { #expect(!table.take(.slow, for: client).allowed) }
        clock.advance(seconds: -50)
        #expect(table.take(.slow, for: client).retryAfterSeconds == 8)
        clock.advance(seconds: 50 + 8)
        #expect(table.take(.slow, for: client).allowed)
    }

    @Test("memory stays fixed under a quarter of a million distinct addresses, and a busy client is still limited")
    func boundedMemory() {
        let clock = TestClock(0)
        let table = Self.table(clock, capacity: 4096)
        #expect(table.slotCount == 4096)
        let busy = Self.key("203.0.113.1")
        for _ in 0..<8 { #expect(table.take(.fast, for: busy).allowed) }
        for index in 0..<250_000 {
            _ = table.take(.fast, for: Self.key("10.\(index >> 16 & 0xFF).\(index >> 8 & 0xFF).\(index & 0xFF)"))
            if index % 250 == 249 { clock.advance(milliseconds: 1) }
        }
        #expect(table.slotCount == 4096)
        #expect(table.occupiedCount == 4096)
        // Kept, or forgotten at worst (a fresh full bucket): limited again after one burst either way.
        let allowed = (0..<20).filter { _ in table.take(.fast, for: busy).allowed }.count
        #expect(allowed == 8)
    }

    @Test("a flood of new addresses never frees a client whose bucket is empty")
    func floodKeepsEmptyBucket() {
        let table = Self.table(TestClock(0), capacity: 128)
        let held = Self.key("198.51.100.7")
        #expect(table.take(.slow, for: held).allowed)
        for index in 0..<20_000 {
            #expect(table.take(.fast, for: Self.key("10.0.\(index >> 8 & 0xFF).\(index & 0xFF)")).allowed)
            #expect(table.take(.fast, for: Self.key("2001:db8:\(String(index, radix: 16))::1")).allowed)
        }
        #expect(table.occupiedCount == 128)
        #expect(!table.take(.slow, for: held).allowed)
    }

    @Test("a full table forgets buckets that are full again first, and never the whole table at once")
    func evictionOrder() {
        let clock = TestClock(0)
        let table = RateLimitTable<Class>(
            table: ClientTable(capacity: 8, shardCount: 1, probeLength: 8), clock: clock.monotonic, rates: Self.rates)
        let idle = (1...6).map { Self.key("192.0.2.\($0)") }
        for client in idle { #expect(table.take(.fast, for: client).allowed) }
        let busy = Self.key("198.51.100.7")
        let half = Self.key("198.51.100.8")
        for _ in 0..<8 { #expect(table.take(.fast, for: busy).allowed) }
        for _ in 0..<4 { #expect(table.take(.fast, for: half).allowed) }
        #expect(table.occupiedCount == 8)
        // 300 ms on, the idle buckets are full again: six newcomers take exactly their slots.
        clock.advance(milliseconds: 300)
        for index in 0..<6 { #expect(table.take(.fast, for: Self.key("203.0.113.\(index)")).allowed) }
        // Both kept: a fresh bucket would have 7 tokens left after this take.
        #expect(table.take(.fast, for: busy).remaining == 1)
        #expect(table.take(.fast, for: half).remaining == 5)
        // One more newcomer evicts a newcomer (one token missing), not the clients held back.
        #expect(table.take(.fast, for: Self.key("203.0.113.99")).allowed)
        #expect(table.take(.fast, for: busy).remaining == 0)
        #expect(table.take(.fast, for: half).remaining == 4)
        #expect(table.occupiedCount == 8)
    }
}
