import FoundationEssentials

/// What happens after an attempt: finish, retry later, or follow a redirect.
extension TransferLoop {
    func proceed(_ job: Job<Tag>, _ step: AttemptStep) {
        var job = job
        switch step {
        case .finish(let outcome):
            job.attempts += 1
            complete(job, outcome)
        case .retry(let error, let retryAfter):
            job.attempts += 1
            guard job.attempts < limits.retry.maxAttempts else {
                complete(job, .failure(error))
                return
            }
            let delay = limits.retry.delay(afterAttempt: job.attempts, retryAfter: retryAfter, using: &random)
            totals.retries += 1
            retries.insert(job, due: MonotonicClock.now() + MonotonicClock.nanoseconds(delay))
        case .redirect(let target):
            follow(job, to: target)
        }
    }

    private func follow(_ job: Job<Tag>, to target: String) {
        var job = job
        job.redirects += 1
        guard job.redirects <= limits.maxRedirects else {
            complete(job, .failure(.tooManyRedirects(url: job.request.url)))
            return
        }
        switch urls.judge(target, redirectedFrom: job.url, allowHost: allowHost) {
        case .success(let endpoint): job.reachesAnyAddress = reach.mayReachAnyAddress(endpoint)
        case .failure(let refusal):
            complete(job, .failure(refusal))
            return
        }
        job.url = target
        resumed.append(job)
    }

    /// Ends matching jobs wherever they are (queued, backing off, in flight, decoding) with `.cancelled`.
    func cancel(where predicate: (Job<Tag>) -> Bool) {
        let (decoding, returned) = decoders.withdraw(where: predicate)
        // Retries on their way back join the retry queue first, where the sweep below finds them.
        for back in returned { proceed(back.job, back.step) }
        let stopped = decoding + detachActive(where: predicate)
            + resumed.remove(where: predicate)
            + fresh.remove(where: predicate)
            + retries.remove(where: predicate)
        for job in stopped { complete(job, .failure(.cancelled(url: job.url))) }
    }

    func complete(_ job: Job<Tag>, _ outcome: HTTPOutcome) {
        totals.completed += 1
        completion(job.completion(outcome))
    }
}
