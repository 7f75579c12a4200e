/// What a message's header lines say about its framing, gathered line by line and reset for each message.
struct HeadFacts {
    var contentLength: Int?
    var chunked = false
    var transferEncodingSeen = false
    var hostCount = 0
    var connectionClose = false
    var connectionKeepAlive = false
    var expectsContinue = false
}
