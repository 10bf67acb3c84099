// A C++ program with libstdc++: iostream output, exceptions thrown
// through several frames and across a shared library boundary (std::stoi
// in libstdc++), RAII destructors during unwinding, std::thread with
// std::mutex and std::condition_variable, thread_local objects with
// constructors and destructors, static objects destroyed at exit, and the
// containers and algorithms that allocate.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

struct Noisy {
    std::string name;
    explicit Noisy(std::string n) : name(std::move(n)) { std::cout << "construct " << name << std::endl; }
    ~Noisy() { std::cout << "destroy " << name << std::endl; }
};

static Noisy global_object("global");

static int depth(int n)
{
    Noisy guard("frame " + std::to_string(n));
    if (n == 0)
        throw std::runtime_error("bottom reached");
    return depth(n - 1) + 1;
}

static std::atomic<int> tl_ctors, tl_dtors;
struct PerThread {
    int uses = 0;
    PerThread() { tl_ctors++; }
    ~PerThread() { tl_dtors++; }
};
thread_local PerThread per_thread;

int main()
{
    std::cout << "hello from iostream " << 42 << ' ' << 3.5 << std::endl;
    try {
        depth(2);
    } catch (const std::exception &e) {
        std::cout << "caught: " << e.what() << std::endl;
    }
    try {
        std::stoi("not a number");
    } catch (const std::invalid_argument &e) {
        std::cout << "stoi threw invalid_argument" << std::endl;
    }
    try {
        std::vector<int> v(3);
        v.at(10) = 1;
    } catch (const std::out_of_range &) {
        std::cout << "vector::at threw out_of_range" << std::endl;
    }
    try {
        throw 17;
    } catch (int x) {
        std::cout << "caught int " << x << std::endl;
    }

    std::mutex mu;
    std::condition_variable cv;
    int turn = 0;
    std::vector<std::thread> threads;
    std::vector<int> order;
    for (int i = 0; i < 4; i++) {
        threads.emplace_back([&, i] {
            per_thread.uses += i + 1;
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] { return turn == i; });
            order.push_back(i * 10 + per_thread.uses);
            turn++;
            cv.notify_all();
        });
    }
    for (auto &t : threads)
        t.join();
    std::cout << "threads ran in turn:";
    for (int x : order)
        std::cout << ' ' << x;
    std::cout << std::endl;
    std::cout << "thread_local constructed " << tl_ctors << ", destroyed " << tl_dtors << std::endl;
    std::cout << "main's thread_local untouched: " << per_thread.uses << std::endl;

    std::thread thrower([] {
        try {
            throw std::logic_error("inside a thread");
        } catch (const std::exception &e) {
            std::cout << "thread caught: " << e.what() << std::endl;
        }
    });
    thrower.join();

    std::map<std::string, int> counts;
    std::istringstream words("the quick brown fox jumps over the lazy dog the end");
    std::string w;
    while (words >> w)
        counts[w]++;
    std::cout << "distinct words " << counts.size() << ", 'the' " << counts["the"] << std::endl;
    std::vector<int> big(100000);
    for (int i = 0; i < 100000; i++)
        big[i] = (i * 7919) % 100003;
    std::sort(big.begin(), big.end());
    std::cout << "sorted: " << std::is_sorted(big.begin(), big.end()) << " max " << big.back() << std::endl;
    auto shared = std::make_shared<Noisy>("shared");
    {
        auto copy = shared;
        std::cout << "use_count " << shared.use_count() << std::endl;
    }
    shared.reset();
    std::cout << "end of main" << std::endl;
    return 0;
}
