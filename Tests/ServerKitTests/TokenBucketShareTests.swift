import Testing

@testable import ServerKit

@Suite("A rate limit shared among instances")
struct TokenBucketShareTests {
    @Test(
        "each instance gets the capacity and the refill rate divided, rounded to the strict side",
        arguments: [
            (TokenBucketRate(requests: 8, perSeconds: 1), 1, TokenBucketRate(requests: 8, perSeconds: 1)),
            (TokenBucketRate(requests: 8, perSeconds: 1), 2, TokenBucketRate(requests: 4, perSeconds: 1)),
            (TokenBucketRate(requests: 8, perSeconds: 1), 3, TokenBucketRate(requests: 2, perSeconds: 1)),
            (TokenBucketRate(requests: 1, perSeconds: 8), 2, TokenBucketRate(requests: 1, perSeconds: 16)),
            (TokenBucketRate(requests: 20, perSeconds: 1), 16, TokenBucketRate(requests: 1, perSeconds: 1)),
            (TokenBucketRate(requests: 600, perSeconds: 60), 7, TokenBucketRate(requests: 85, perSeconds: 60)),
        ])
    func knownShares(rate: TokenBucketRate, instances: Int, share: TokenBucketRate) {
        #expect(rate.share(among: instances) == share)
    }

    @Test("all the shares together never refill faster than the limit, and each holds at least one token")
    func bound() {
        for requests in 1...40 {
            for perSeconds in [1, 2, 8, 60] {
                for instances in 1...12 {
                    let rate = TokenBucketRate(requests: requests, perSeconds: perSeconds)
                    let share = rate.share(among: instances)
                    #expect(share.requests >= 1)
                    // share.requests / share.perSeconds * instances <= requests / perSeconds
                    #expect(share.requests * instances * perSeconds <= requests * share.perSeconds)
                    // The capacities add up to the limit's, or to one per instance when it does not divide.
                    #expect(share.requests * instances <= max(requests, instances))
                }
            }
        }
    }
}
