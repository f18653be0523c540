import CabRedis

/// SwiftCab's server-side functions (one Lua library, `FUNCTION LOAD REPLACE`): each runs atomically on the
/// server, reads the server's clock where time matters (so nodes' clocks may disagree), and is loaded again
/// after a restart of a server without persistence.
enum ClusterFunctions {
    static let source = """
        #!lua name=swiftcab

        -- Newest position wins: KEYS[1] the hash; ARGV driver, time_ms, line triples. Returns how many were stored.
        local function put_latest(keys, args)
          local stored = 0
          for i = 1, #args, 3 do
            local current = redis.call('HGET', keys[1], args[i])
            local newer = true
            if current then
              local t = tonumber(string.match(current, '^[^,]*,(%d+),'))
              if t and t >= tonumber(args[i + 1]) then newer = false end
            end
            if newer then
              redis.call('HSET', keys[1], args[i], args[i + 2])
              stored = stored + 1
            end
          end
          return stored
        end

        -- A token bucket: KEYS[1] the bucket's hash; ARGV capacity, refill per second, cost. Uses the server's clock.
        -- Returns {1, 0} when taken, {0, milliseconds until enough tokens} when refused.
        local function take(keys, args)
          local capacity = tonumber(args[1])
          local rate = tonumber(args[2])
          local cost = tonumber(args[3])
          local now = redis.call('TIME')
          local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
          local tokens = tonumber(redis.call('HGET', keys[1], 't'))
          local last = tonumber(redis.call('HGET', keys[1], 'at'))
          if tokens == nil or last == nil then
            tokens = capacity
            last = nowMs
          end
          tokens = math.min(capacity, tokens + math.max(0, nowMs - last) * rate / 1000)
          local ttl = math.ceil(capacity / rate * 1000) + 1000
          if tokens >= cost then
            redis.call('HSET', keys[1], 't', tokens - cost, 'at', nowMs)
            redis.call('PEXPIRE', keys[1], ttl)
            return {1, 0}
          end
          redis.call('HSET', keys[1], 't', tokens, 'at', nowMs)
          redis.call('PEXPIRE', keys[1], ttl)
          return {0, math.ceil((cost - tokens) * 1000 / rate)}
        end

        -- Reserves `count` dense ids from the counter `key` and returns the block's last. A missing counter (a new
        -- or restarted server without persistence) starts above `floor` (the highest id the caller has seen) and
        -- above the server's clock in microseconds, so ids keep increasing across a restart of Redis.
        local function reserve(key, count, floor)
          if redis.call('EXISTS', key) == 0 then
            local now = redis.call('TIME')
            local start = math.max(floor, tonumber(now[1]) * 1000000 + tonumber(now[2]))
            redis.call('SET', key, string.format('%d', start))
          elseif floor > 0 and tonumber(redis.call('GET', key)) < floor then
            redis.call('SET', key, string.format('%d', floor))
          end
          return redis.call('INCRBY', key, count)
        end

        -- Dense ids: KEYS[1] the counter; ARGV count, floor. Returns the last id of the block.
        local function next_ids(keys, args)
          return reserve(keys[1], tonumber(args[1]), tonumber(args[2]))
        end

        -- One batch of positions as fleet events: KEYS the counter, the stream, the newest-position hash; ARGV node,
        -- max stream entries, floor, the batch (lines), then driver, time_ms, line triples for the hash. Numbers
        -- the batch's lines from the counter and appends it in the same step, so that the stream's order is the
        -- ids' order on every node. Returns the id of the batch's first line.
        local function publish(keys, args)
          local count = 0
          for i = 5, #args, 3 do count = count + 1 end
          local last = reserve(keys[1], count, tonumber(args[3]))
          local first = last - count + 1
          redis.call('XADD', keys[2], 'MAXLEN', '~', args[2], '*', 'node', args[1],
            'first', string.format('%d', first), 'p', args[4])
          local latest = {}
          for i = 5, #args do latest[#latest + 1] = args[i] end
          put_latest({keys[3]}, latest)
          return first
        end

        -- Membership: KEYS[1] the members' hash; ARGV node, alive window (ms), map, tariff, line, mode ('join' or
        -- 'beat'). Forgets nodes not seen within the window; compares the map and tariff with every live node's.
        -- 'join' registers only when they agree, 'beat' always refreshes. Returns {'ok'|'map'|'tariff', node, entry}.
        local function join(keys, args)
          local node, alive, map, tariff, line, mode = args[1], tonumber(args[2]), args[3], args[4], args[5], args[6]
          local now = redis.call('TIME')
          local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
          local all = redis.call('HGETALL', keys[1])
          local verdict = {'ok', '', ''}
          for i = 1, #all, 2 do
            local other, stored = all[i], all[i + 1]
            if other ~= node then
              local seen, omap, otariff = string.match(stored, '^(%d+)\\t([^\\t]*)\\t([^\\t]*)\\t')
              if seen and nowMs - tonumber(seen) > alive then
                redis.call('HDEL', keys[1], other)
              elseif seen and verdict[1] == 'ok' then
                if omap ~= map then
                  verdict = {'map', other, stored}
                elseif otariff ~= tariff then
                  verdict = {'tariff', other, stored}
                end
              end
            end
          end
          if verdict[1] == 'ok' or mode == 'beat' then
            redis.call('HSET', keys[1], node, string.format('%d', nowMs) .. '\\t' .. line)
          end
          return verdict
        end

        -- An offer ended: KEYS[1] the driver's offer; ARGV the trip. Deletes it only if it is still that trip's.
        local function drop_offer(keys, args)
          local current = redis.call('GET', keys[1])
          if current and string.sub(current, 1, #args[1] + 1) == args[1] .. '\\n' then
            return redis.call('DEL', keys[1])
          end
          return 0
        end

        redis.register_function('cab_put_latest', put_latest)
        redis.register_function('cab_drop_offer', drop_offer)
        redis.register_function('cab_join', join)
        redis.register_function('cab_take', take)
        redis.register_function('cab_next_ids', next_ids)
        redis.register_function('cab_publish', publish)
        """

    /// Calls `name`, loading the library first when the server does not have it (a new or restarted server).
    static func call(_ redis: RedisClient, _ name: String, keys: [any RedisArgument], arguments: [any RedisArgument])
        throws(RedisError) -> RedisReply
    {
        do {
            return try redis.call(name, keys: keys, arguments: arguments)
        } catch let error where error.code == .server && error.message.contains("Function not found") {
            try redis.loadFunctions(source)
            return try redis.call(name, keys: keys, arguments: arguments)
        }
    }
}
