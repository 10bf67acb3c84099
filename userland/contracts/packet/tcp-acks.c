/* Segments of a request/response exchange over loopback TCP, as a packet
 * socket on lo sees them: once the connection is past its first
 * exchanges (Linux's quick-ack mode), each side's ACK rides on its next
 * data (the answer, the next request) instead of going alone, so 20
 * exchanges of 8-byte messages with TCP_NODELAY are 40 data segments and
 * fewer than 20 without data (none on Linux, unless a delayed-ACK timer
 * fires on a loaded machine; an ACK of its own for each message is 40). */
#include "packet.h"
#include "tcp-exchange.h"

int main(void)
{
    int data, bare;
    if (count_exchange_segments(24, 20, &data, &bare) < 0)
        return 1;
    out("data segments: %d", data);
    out("segments without data fewer than 20: %s", yesno(bare < 20));
    return 0;
}
