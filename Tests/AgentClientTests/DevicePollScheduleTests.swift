import AgentClient
import Testing

/// How `postern agent login --device` paces its polls (RFC 8628 section 3.5).
@Suite("Device poll schedule: the interval, slow_down's 5 s more, and when to stop")
struct DevicePollScheduleTests {
    @Test("pending waits the interval; each slow_down adds 5 s for every later poll")
    func pacing() {
        var schedule = DevicePollSchedule(interval: 5, expiresIn: 600)
        #expect(schedule.first() == .wait(seconds: 5))
        #expect(schedule.next(afterError: "authorization_pending") == .wait(seconds: 5))
        #expect(schedule.next(afterError: "slow_down") == .wait(seconds: 10))
        #expect(schedule.next(afterError: "authorization_pending") == .wait(seconds: 10))
        #expect(schedule.next(afterError: "slow_down") == .wait(seconds: 15))
        #expect(schedule.interval == 15 && schedule.remaining == 600 - 45)
    }

    @Test("no interval from the server: 5 s (the RFC's default)")
    func defaultInterval() {
        var schedule = DevicePollSchedule(interval: nil, expiresIn: 60)
        #expect(schedule.first() == .wait(seconds: 5))
    }

    @Test("denied, expired and any other error stop; so does a lifetime that would end before the next poll")
    func stops() {
        var schedule = DevicePollSchedule(interval: 5, expiresIn: 12)
        #expect(schedule.next(afterError: "access_denied") == .stop(.denied))
        #expect(schedule.next(afterError: "expired_token") == .stop(.expired))
        #expect(
            schedule.next(afterError: "invalid_grant", description: "used")
                == .stop(.refused(code: "invalid_grant", description: "used")))
        #expect(schedule.first() == .wait(seconds: 5))
        #expect(schedule.next(afterError: "authorization_pending") == .wait(seconds: 5))
        #expect(schedule.next(afterError: "authorization_pending") == .stop(.expired), "2 s left, 5 s to wait")
    }
}
