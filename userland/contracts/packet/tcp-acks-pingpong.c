/* Linux's ping-pong mode: a connection whose side answered three times
 * (data sent soon after data arrived) stops acknowledging at once, even
 * with quick ACKs left (it has 16 at the first data): the ACK rides on the
 * answer or the next request. 12 exchanges of 8-byte messages with
 * TCP_NODELAY after the first 4 are 24 data segments and fewer than 8
 * without data (none on Linux, unless a delayed-ACK timer fires on a
 * loaded machine; acknowledging each message alone while quick ACKs last
 * is over 20). */
#include "packet.h"
#include "tcp-exchange.h"

int main(void)
{
    int data, bare;
    if (count_exchange_segments(4, 12, &data, &bare) < 0)
        return 1;
    out("data segments: %d", data);
    out("segments without data fewer than 8: %s", yesno(bare < 8));
    return 0;
}
