import { describe, expect, it } from 'vitest';
import { conversationMessage, StandingAsk, TURN_MAX_CHARS } from '../../src/standing-ask.js';

/** How each turn stands, in order (StandingAsk.turn). */
function turns(...said: Array<[message: string, reply: string]>): number[] {
  const asks = new StandingAsk();
  return said.map(([message, reply]) => asks.turn(message, reply, undefined));
}

describe('conversationMessage', () => {
  it('is the prose a call says when a short text comes back', () => {
    const ask = 'Could you please provide your postcode so I can verify your account?';
    expect(conversationMessage({ channel: 'chat', content: ask }, 'It is 40213.')).toBe(ask);
  });

  it('is no message for a command, code, a query, a JSON record or a document', () => {
    expect(conversationMessage({ command: 'grep -rn "timeout" src/ | head -20' }, 'src/a.ts:3: timeout')).toBeUndefined();
    // Words of letters, but no sentence: a search, not something said to someone.
    expect(conversationMessage({ query: 'stock price history of the company last year' }, 'Apple stock history: see the table')).toBeUndefined();
    const code = 'from functions import perform_web_search\n\nquery = "restaurants in Albuquerque"\nresults = perform_web_search(query)\n\nresults';
    expect(conversationMessage({ code }, 'Search Result 1: ...')).toBeUndefined();
    expect(conversationMessage({ content: 'Please tell me your order number now.' }, '{"order":"W123"}')).toBeUndefined();
    expect(conversationMessage({ content: 'Please tell me your order number now.' }, 'x'.repeat(TURN_MAX_CHARS + 1))).toBeUndefined();
  });
});

describe('StandingAsk', () => {
  it('marks the ask made again after the user gave, again, a value the run had', () => {
    expect(
      turns(
        ['Hello! To look up your order I need to verify your identity. What is your postcode?', 'Sure, my postcode is 40213.'],
        ['I will need your postcode to verify your account before I can look up the order.', 'I said it: my postcode is 40213.'],
        ['Before I can help with the exchange, could you please provide your postcode?', 'My postcode is 40213, as I told you.'],
        ['Could you please give me your postcode so I can find your account?', '40213!'],
      ),
    ).toEqual([0, 0, 1, 2]);
  });

  it('leaves a refusal restated to each new plea alone: no reply gives a value', () => {
    expect(
      turns(
        ['I am sorry, a basic economy reservation cannot be cancelled for a change of plans.', 'Please, it is really important to me.'],
        ['I understand, but basic economy reservations cannot be cancelled under the policy.', 'Can you not make an exception just this once?'],
        ['I am afraid I cannot make an exception: basic economy reservations are not refundable.', 'This is terrible service.'],
      ),
    ).toEqual([0, 0, 0]);
  });

  it('reads a message naming the value given as a confirmation, not the ask again', () => {
    expect(
      turns(
        ['What is the email address on your account, please?', 'It is kim.lee4410@example.com'],
        ['Could you spell the email address on your account once more?', 'kim.lee4410@example.com'],
        ['Thanks, I have kim.lee4410@example.com as your email address on the account. Is that right?', 'Yes.'],
      ),
    ).toEqual([0, 0, 0]);
  });

  it('reads a reply with a new value and no old one as the conversation moving on: the count starts again', () => {
    expect(
      turns(
        ['What is the email address on your account, please?', 'kim.lee4410@example.com'],
        ['Could you share the email address on your account?', 'kim.lee4410@example.com'],
        ['May I have the email address linked to your account?', 'Oh, maybe it is kim.lee2287@example.com then.'],
        ['Could you confirm the email address linked to your account?', 'kim.lee2287@example.com'],
        ['Please tell me the email address of your account.', 'kim.lee2287@example.com'],
      ),
    ).toEqual([0, 0, 1, 0, 1]);
  });

  it('reads a receipt naming what the call itself was given as no answer: drafts written to one file again and again', () => {
    const asks = new StandingAsk();
    const write = (draft: string) => {
      const args = { path: 'notes/q3-report2026.md', content: draft };
      return asks.turn(draft, 'Wrote notes/q3-report2026.md', JSON.stringify(args));
    };
    const drafts = [
      'Quarterly revenue grew on the strength of the retail segment and new stores.',
      'Quarterly revenue grew on the strength of the retail segment, new stores and online sales.',
      'Quarterly revenue grew, mostly on the strength of the retail segment and its new stores.',
      'Quarterly revenue grew on the strength of the retail segment; margins held steady.',
    ];
    expect(drafts.map(write)).toEqual([0, 0, 0, 0]);
  });

  it('starts counting again after an interruption', () => {
    const asks = new StandingAsk();
    asks.turn('What is the email address on your account, please?', 'kim.lee4410@example.com', undefined);
    asks.turn('Could you share the email address on your account?', 'kim.lee4410@example.com', undefined);
    expect(asks.turn('May I have the email address linked to your account?', 'kim.lee4410@example.com', undefined)).toBe(1);
    expect(asks.turn('Please tell me the email address of your account.', 'kim.lee4410@example.com', undefined)).toBe(2);
    asks.interrupt();
    expect(asks.waiting).toBe(false);
    asks.turn('What is the email address on your account, please?', 'kim.lee4410@example.com', undefined);
    expect(asks.turn('Could you share the email address on your account?', 'kim.lee4410@example.com', undefined)).toBe(1);
  });
});
