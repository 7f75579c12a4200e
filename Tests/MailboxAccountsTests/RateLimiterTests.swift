import Testing

@testable import MailboxAccounts

@Suite("Token buckets")
struct RateLimiterTests {
    @Test("a bucket allows its burst, refuses, then refills with time")
    func refill() {
        let limiter = RateLimiter(rates: MailboxRateLimits(), capacity: 1024)
        let client: [UInt8] = [192, 0, 2, 1]
        for index in 0..<8 {
            let decision = limiter.take(.publicRequests, client: client, nowMillis: 1_000)
            #expect(decision.allowed)
            #expect(decision.remaining == 7 - index)
            #expect(decision.limit == 8)
        }
        let refused = limiter.take(.publicRequests, client: client, nowMillis: 1_000)
        #expect(!refused.allowed)
        #expect(refused.retryAfterSeconds == 1)
        #expect(refused.remaining == 0)
        #expect(refused.resetSeconds == 1)
        // 125 ms later one token (8 per second) is back.
        #expect(limiter.take(.publicRequests, client: client, nowMillis: 1_125).allowed)
        #expect(!limiter.take(.publicRequests, client: client, nowMillis: 1_125).allowed)
        // Other clients and other classes have their own buckets.
        #expect(limiter.take(.publicRequests, client: [192, 0, 2, 2], nowMillis: 1_125).allowed)
        #expect(limiter.take(.pro, client: client, nowMillis: 1_125).allowed)
    }

    @Test("free account creation: one per 8 seconds")
    func accountCreation() {
        let limiter = RateLimiter(rates: MailboxRateLimits(), capacity: 1024)
        let client: [UInt8] = [198, 51, 100, 7]
        #expect(limiter.take(.freeAccountCreation, client: client, nowMillis: 0).allowed)
        let refused = limiter.take(.freeAccountCreation, client: client, nowMillis: 1_000)
        #expect(!refused.allowed)
        #expect(refused.retryAfterSeconds == 7)
        #expect(refused.limit == 1)
        #expect(!limiter.take(.freeAccountCreation, client: client, nowMillis: 7_999).allowed)
        #expect(limiter.take(.freeAccountCreation, client: client, nowMillis: 9_000).allowed)
        for _ in 0..<8 { #expect(limiter.take(.proAccountCreation, client: client, nowMillis: 9_000).allowed) }
        #expect(!limiter.take(.proAccountCreation, client: client, nowMillis: 9_000).allowed)
    }

    @Test("memory stays fixed under a million distinct addresses, and a busy client is still limited")
    func boundedMemory() {
        let limiter = RateLimiter(rates: MailboxRateLimits(), capacity: 4096)
        let slots = limiter.slotCount
        #expect(slots <= 4096)
        let busy: [UInt8] = [203, 0, 113, 1]
        for _ in 0..<8 { #expect(limiter.take(.publicRequests, client: busy, nowMillis: 0).allowed) }
        for index in 0..<1_000_000 {
            let client = [UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF), 9]
            _ = limiter.take(.publicRequests, client: client, nowMillis: Int64(index / 1000))
        }
        #expect(limiter.slotCount == slots)
        // The busy client was evicted at worst (a fresh full bucket), and is limited again after its burst.
        var allowed = 0
        for _ in 0..<20 {
            if limiter.take(.publicRequests, client: busy, nowMillis: 1_000).allowed { allowed += 1 }
        }
        #expect(allowed == 8)
    }
}
