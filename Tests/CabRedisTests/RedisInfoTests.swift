import CabRedis
import Testing

@Suite("RedisInfo")
struct RedisInfoTests {
    @Test("reads used_memory and the CPU seconds out of INFO's text, skipping headings")
    func readsMemoryAndCPU() {
        let info = RedisInfo(
            "# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n\r\n# CPU\r\nused_cpu_sys:1.250000\r\n"
                + "used_cpu_user:0.750000\r\nused_cpu_sys_children:0.000000\r\n")
        #expect(info.usedMemoryBytes == 1_048_576)
        #expect(info.usedCPUSeconds == 2.0)
        #expect(info.fields["used_memory_human"] == "1.00M")
        #expect(info.fields["# Memory"] == nil)
    }

    @Test("a field missing or not a number is nil, not zero")
    func missingFields() {
        let info = RedisInfo("# CPU\nused_cpu_sys:0.5\nused_memory:lots\n")
        #expect(info.usedCPUSeconds == nil)
        #expect(info.usedMemoryBytes == nil)
        #expect(info.number("used_cpu_sys") == 0.5)
    }
}
