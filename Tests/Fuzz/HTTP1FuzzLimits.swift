// The parser limits both HTTP1 fuzz targets (http1, http1head) run with; built into each by scripts/fuzz.

/// Small limits, so that the fuzzer reaches every limit check with short inputs.
let fuzzLimits: HTTPParserLimits = {
    var limits = HTTPParserLimits()
    limits.maxRequestLineLength = 256
    limits.maxHeaderBlockLength = 512
    limits.maxHeaderCount = 16
    limits.maxBodyLength = 1024
    limits.maxChunkSizeDigits = 4
    limits.maxChunkExtensionLength = 32
    limits.maxTrailerLength = 128
    return limits
}()
